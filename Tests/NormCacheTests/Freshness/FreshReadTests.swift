import TestSupport
import Testing
@testable import NormCache

/// Reads judged by freshness, end to end through the public API with a clock the test
/// sets: max-age rules from `configure` (field, type, inherit, default, the parent's
/// bound, the concrete typename), lifetimes from a write (its `maxAge`, the server's
/// `Cache-Control`, `Age`, `Date` and `Expires`, `no-store`, `no-cache`), stale data
/// allowed by `maxStale`, the times a read reports, and rules changed after the data
/// was written. Exact statuses, entries and data.
@Suite struct FreshReadTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT: the RFC's example date, so headers can name it.
    static let start: UInt64 = 784_111_777

    static let sdl = """
        type Query { feed(first: Int): [Article] node(id: ID!): Node }
        interface Node { id: ID! }
        type Article implements Node { id: ID! title: String body: String author: User }
        type User implements Node { id: ID! name: String }
        extend type Article @typePolicy(keyFields: "id")
        extend type User @typePolicy(keyFields: "id")
        """
    static let feedQuery = "query Feed { feed(first: 2) { id title body author { id name } } }"
    static let feedResponse = #"{"data": {"feed": [{"__typename": "Article", "id": "1", "title": "One", "body": "B1", "author": {"__typename": "User", "id": "7", "name": "Ada"}}, {"__typename": "Article", "id": "2", "title": "Two", "body": "B2", "author": {"__typename": "User", "id": "7", "name": "Ada"}}]}}"#
    static let feedData = #"{"feed":[{"id":"1","title":"One","body":"B1","author":{"id":"7","name":"Ada"}},{"id":"2","title":"Two","body":"B2","author":{"id":"7","name":"Ada"}}]}"#

    /// The fields the feed's response writes: `QUERY_ROOT.feed(first:2)`, five per
    /// article (`__typename`, `id`, `title`, `body`, `author`) and three of `User:7`.
    static let feedFields = 14

    /// A cache with the schema, `configuration` (when given), the clock at `start` and
    /// the feed prepared; `now` moves the clock.
    func feedCache(_ configuration: String? = nil) throws -> (TestCache, PreparedOperation, Counter) {
        let now = Counter(start: Self.start)
        let test = try TestCache(clock: { now.value })
        try test.cache.loadSchema(Self.sdl)
        if let configuration { try test.cache.configure(configuration) }
        return (test, try test.cache.prepare(Self.feedQuery), now)
    }

    /// The paths of the entries, dotted.
    func paths(_ entries: [FieldReport]) -> [String] { entries.map { $0.path.map(\.description).joined(separator: ".") } }

    @Test func withoutRulesDataNeverExpires() throws {
        let (test, feed, now) = try feedCache()
        _ = try test.cache.write(feed, response: Self.feedResponse)
        now.value = Self.start + 100 * 365 * 86_400
        #expect(try test.cache.read(feed) == ReadResult(status: .complete, data: Array(Self.feedData.utf8)))
        let reported = try test.cache.read(feed, options: ReadOptions(reportingFreshness: true))
        #expect(reported.oldestWrittenAt == Self.start && reported.earliestExpiry == nil)
    }

    @Test func aTypeRuleExpiresTheRootFieldOfThatTypeAndWhatItReaches() throws {
        let (test, feed, now) = try feedCache(#"{"maxAges": {"Article": 1800}}"#)
        _ = try test.cache.write(feed, response: Self.feedResponse)
        now.value = Self.start + 1799
        #expect(try test.cache.read(feed).status == .complete)
        now.value = Self.start + 1800
        let result = try test.cache.read(feed)
        // The root field is stale: the read does not go below it.
        #expect(result == ReadResult(status: .miss, data: nil, missing: [
            FieldReport(path: [.key("feed")], reason: .stale, record: "QUERY_ROOT", field: "feed(first:2)",
                         writtenAt: Self.start, expiredAt: Self.start + 1800),
        ]))
    }

    @Test func aFieldRuleBeatsTheTypeRule() throws {
        let (test, feed, now) = try feedCache(#"{"maxAges": {"Article": 1800, "Article.body": 30}}"#)
        _ = try test.cache.write(feed, response: Self.feedResponse)
        now.value = Self.start + 30
        let result = try test.cache.read(feed, options: ReadOptions(partial: true))
        #expect(result.status == .miss)
        #expect(paths(result.missing) == ["feed.0.body", "feed.1.body"])
        #expect(result.missing.map(\.record) == ["Article:1", "Article:2"])
        #expect(result.missing.map(\.field) == ["body", "body"])
        #expect(result.missing.allSatisfy { $0.reason == .stale && $0.expiredAt == Self.start + 30 })
        #expect(result.data == Array(Self.feedData.replacingOccurrences("\"B1\"", "null").replacingOccurrences("\"B2\"", "null").utf8))
    }

    @Test func aChildIsNeverFresherThanThePathToIt() throws {
        // title's own 5000 is bounded by feed's 60; author's User rule of 10 is lower still.
        let (test, feed, now) = try feedCache(#"{"maxAges": {"Query.feed": 60, "Article.title": 5000, "User": 10}}"#)
        _ = try test.cache.write(feed, response: Self.feedResponse)
        now.value = Self.start + 10
        #expect(paths(try test.cache.read(feed).missing) == ["feed.0.author", "feed.1.author"])
        now.value = Self.start + 59
        #expect(paths(try test.cache.read(feed).missing) == ["feed.0.author", "feed.1.author"])
        now.value = Self.start + 60
        #expect(paths(try test.cache.read(feed).missing) == ["feed"])
    }

    @Test func aTimeBefore1978IsJudgedInFullAlike() throws {
        // Times under 2^28 take fewer than five varint bytes: the read decodes them.
        let now = Counter(start: 1000)
        let test = try TestCache(clock: { now.value })
        try test.cache.loadSchema(Self.sdl)
        try test.cache.configure(#"{"maxAges": {"Query.feed": 60, "User": 10}}"#)
        let feed = try test.cache.prepare(Self.feedQuery)
        _ = try test.cache.write(feed, response: Self.feedResponse)
        now.value = 1009
        #expect(try test.cache.read(feed) == ReadResult(status: .complete, data: Array(Self.feedData.utf8)))
        now.value = 1010
        #expect(paths(try test.cache.read(feed).missing) == ["feed.0.author", "feed.1.author"])
        now.value = 1060
        #expect(paths(try test.cache.read(feed).missing) == ["feed"])
    }

    @Test func inheritTakesTheParentFieldsMaxAge() throws {
        let (test, feed, now) = try feedCache(#"{"maxAges": {"Query.feed": 60, "User": 10, "Article.author": "inherit"}}"#)
        _ = try test.cache.write(feed, response: Self.feedResponse)
        now.value = Self.start + 59
        #expect(try test.cache.read(feed).status == .complete)
        now.value = Self.start + 60
        #expect(paths(try test.cache.read(feed).missing) == ["feed"])
    }

    @Test func theDefaultAppliesToRootAndCompositeFieldsAndLeavesInherit() throws {
        let (test, feed, now) = try feedCache(#"{"defaultMaxAge": 100, "maxAges": {"Query.feed": 500}}"#)
        _ = try test.cache.write(feed, response: Self.feedResponse)
        // feed: 500; author (composite, no rule): the default, 100; title (a leaf): feed's 500.
        now.value = Self.start + 100
        let result = try test.cache.read(feed, options: ReadOptions(partial: true))
        #expect(paths(result.missing) == ["feed.0.author", "feed.1.author"])
        now.value = Self.start + 500
        #expect(paths(try test.cache.read(feed).missing) == ["feed"])
    }

    @Test func aFieldRuleIsFoundOnTheObjectsConcreteType() throws {
        let (test, _, now) = try feedCache(#"{"maxAges": {"Article.title": 10}}"#)
        let node = try test.cache.prepare(#"query { node(id: "1") { id ... on Article { title } } }"#)
        _ = try test.cache.write(node, response: #"{"data": {"node": {"__typename": "Article", "id": "1", "title": "One"}}}"#)
        now.value = Self.start + 10
        let result = try test.cache.read(node)
        #expect(result.missing == [FieldReport(path: [.key("node"), .key("title")], reason: .stale, record: "Article:1", field: "title",
                                                writtenAt: Self.start, expiredAt: Self.start + 10)])
    }

    @Test func aRuleConfiguredAfterTheWriteAppliesWithoutRewriting() throws {
        let (test, feed, now) = try feedCache()
        _ = try test.cache.write(feed, response: Self.feedResponse)
        now.value = Self.start + 61
        #expect(try test.cache.read(feed).status == .complete)
        try test.cache.configure(#"{"maxAges": {"Query.feed": 60}}"#)
        #expect(paths(try test.cache.read(feed).missing) == ["feed"])
        try test.cache.configure(#"{"maxAges": {"Query.feed": 3600}}"#)
        #expect(try test.cache.read(feed).status == .complete)
    }

    @Test func maxStaleReturnsStaleDataAndListsIt() throws {
        let (test, feed, now) = try feedCache(#"{"maxAges": {"Article.body": 30}}"#)
        _ = try test.cache.write(feed, response: Self.feedResponse)
        now.value = Self.start + 40
        let allowed = try test.cache.read(feed, options: ReadOptions(maxStale: 10, reportingFreshness: true))
        #expect(allowed.status == .stale && allowed.data == Array(Self.feedData.utf8) && allowed.missing.isEmpty)
        #expect(allowed.stale == [
            FieldReport(path: [.key("feed"), .index(0), .key("body")], reason: .stale, record: "Article:1", field: "body",
                       writtenAt: Self.start, expiredAt: Self.start + 30),
            FieldReport(path: [.key("feed"), .index(1), .key("body")], reason: .stale, record: "Article:2", field: "body",
                       writtenAt: Self.start, expiredAt: Self.start + 30),
        ])
        #expect(allowed.oldestWrittenAt == Self.start && allowed.earliestExpiry == Self.start + 30)
        // One second more than allowed: a miss.
        let tooOld = try test.cache.read(feed, options: ReadOptions(maxStale: 9))
        #expect(tooOld.status == .miss && paths(tooOld.missing) == ["feed.0.body", "feed.1.body"] && tooOld.stale.isEmpty)
    }

    @Test func aWritesMaxAgeStampsOnlyTheFieldsItCarries() throws {
        let (test, feed, now) = try feedCache()
        _ = try test.cache.write(feed, response: Self.feedResponse, options: WriteOptions(maxAge: 300))
        let titles = try test.cache.prepare("query Titles { feed(first: 2) { id title } }")
        now.value = Self.start + 100
        _ = try test.cache.write(titles, response: #"{"data": {"feed": [{"__typename": "Article", "id": "1", "title": "One"}, {"__typename": "Article", "id": "2", "title": "Two"}]}}"#)
        now.value = Self.start + 300
        // feed(first:2), id and title were written again without a lifetime: fresh for ever.
        #expect(try test.cache.read(titles).status == .complete)
        let result = try test.cache.read(feed, options: ReadOptions(reportingFreshness: true))
        #expect(paths(result.missing) == ["feed.0.body", "feed.0.author", "feed.1.body", "feed.1.author"])
        #expect(result.missing.allSatisfy { $0.expiredAt == Self.start + 300 })
    }

    @Test func anIdenticalRewriteRefreshesTheTimesWithoutAChange() throws {
        let (test, feed, now) = try feedCache(#"{"maxAges": {"Query.feed": 60}}"#)
        #expect(try test.cache.write(feed, response: Self.feedResponse).count == Self.feedFields)
        now.value = Self.start + 50
        #expect(try test.cache.write(feed, response: Self.feedResponse) == [])
        now.value = Self.start + 100
        let result = try test.cache.read(feed, options: ReadOptions(reportingFreshness: true))
        #expect(result.status == .complete && result.oldestWrittenAt == Self.start + 50 && result.earliestExpiry == Self.start + 110)
    }

    @Test(arguments: [
        // Cache-Control, Age, Date, Expires → the expiry (seconds after start), or nil for never.
        (WriteOptions(cacheControl: "max-age=600"), 600),
        (WriteOptions(cacheControl: "public, max-age=600", age: "100"), 500),
        (WriteOptions(cacheControl: "max-age=600", age: "100", date: "Sun, 06 Nov 1994 08:46:17 GMT"), 400),
        (WriteOptions(date: "Sun, 06 Nov 1994 08:49:37 GMT", expires: "Sun, 06 Nov 1994 09:49:37 GMT"), 3600),
        (WriteOptions(maxAge: 60, cacheControl: "max-age=600"), 60),
        (WriteOptions(maxAge: 900, cacheControl: "max-age=600"), 600),
        (WriteOptions(cacheControl: "no-cache"), 0),
        (WriteOptions(cacheControl: "max-age=0"), 0),
        (WriteOptions(expires: "0"), 0),
        (WriteOptions(cacheControl: "private"), nil),
    ] as [(WriteOptions, UInt64?)])
    func theServersHeadersSetTheExpiry(options: WriteOptions, expiry: UInt64?) throws {
        let (test, feed, _) = try feedCache()
        let written = try test.cache.write(feed, response: Self.feedResponse, options: options)
        #expect(written.isStored && written.changed.count == Self.feedFields)
        let result = try test.cache.read(feed, options: ReadOptions(maxStale: 0, reportingFreshness: true))
        #expect(result.earliestExpiry == expiry.map { Self.start + $0 })
        #expect(result.status == (expiry == 0 ? .stale : .complete))
    }

    @Test func noStoreWritesNothingAndSaysSo() throws {
        let (test, feed, _) = try feedCache()
        #expect(try test.cache.write(feed, response: Self.feedResponse, options: WriteOptions(cacheControl: "no-store, max-age=60"))
            == WriteResult(isStored: false, changed: []))
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }

    @Test func aBadLifetimeIsAnErrorAndWritesNothing() throws {
        let (test, feed, _) = try feedCache()
        #expect(throws: NormCacheError(.invalidArgument, "max_age 2147483648 is beyond the largest lifetime, 2147483647 seconds")) {
            try test.cache.write(feed, response: Self.feedResponse, options: WriteOptions(maxAge: 2_147_483_648))
        }
        #expect(throws: NormCacheError.self) {
            try test.cache.write(feed, response: Self.feedResponse, options: WriteOptions(cacheControl: "max-age=soon"))
        }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }

    @Test func aClockBefore1970FailsTheCall() throws {
        let (test, feed, _) = try feedCache()
        test.cache.setClock { -5 }
        #expect(throws: NormCacheError(.callback, "the cache's clock answered -5: a clock answers seconds since 1970, not below 0")) {
            try test.cache.write(feed, response: Self.feedResponse)
        }
        #expect(throws: NormCacheError.self) { try test.cache.read(feed) }
        test.cache.setClock(nil)
        _ = try test.cache.write(feed, response: Self.feedResponse)
        let written = try test.cache.read(feed, options: ReadOptions(reportingFreshness: true)).oldestWrittenAt ?? 0
        #expect(written >= 1_764_000_000)
    }
}

extension String {
    /// The text with every `target` replaced by `replacement` (Foundation-free).
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
