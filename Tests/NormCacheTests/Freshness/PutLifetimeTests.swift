import TestSupport
import Testing
@testable import NormCache

/// Lifetimes on `put` and `writeFragment` (`WriteOptions`), as `write` takes them, with
/// a clock the test sets: each stamps only the fields it carries, the server's headers
/// set the expiry, `no-store` writes nothing, and bad headers write nothing. Freshness
/// is read back through a fragment, with exact statuses, times and entries.
@Suite struct PutLifetimeTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, as in `FreshReadTests`.
    static let start: UInt64 = 784_111_777
    static let fragmentText = "fragment Parts on Article { title body }"

    /// A cache with the clock at `start` and the fragment prepared; `now` moves the clock.
    func articleCache() throws -> (TestCache, PreparedOperation, Counter) {
        let now = Counter(start: Self.start)
        let test = try TestCache(clock: { now.value })
        return (test, try test.cache.prepare(Self.fragmentText), now)
    }

    /// The fragment read of `Article:1`, stale data allowed within `maxStale`.
    func read(_ test: TestCache, _ fragment: PreparedOperation, maxStale: UInt64? = nil) throws -> ReadResult {
        try test.cache.readFragment(fragment, key: "Article:1", options: ReadOptions(maxStale: maxStale, reportingFreshness: true))
    }

    @Test func aPutsMaxAgeStampsOnlyTheFieldsItGives() throws {
        let (test, fragment, now) = try articleCache()
        #expect(try test.cache.put(json: #"{"Article:1": {"title": "One", "body": "B"}}"#) == ["Article:1.title", "Article:1.body"])
        now.value = Self.start + 10
        let written = try test.cache.put(json: #"{"Article:1": {"title": "Uno"}}"#, options: WriteOptions(maxAge: 60))
        #expect(written == WriteResult(isStored: true, changed: ["Article:1.title"]))
        let fresh = try read(test, fragment)
        #expect(fresh.status == .complete && fresh.oldestWrittenAt == Self.start && fresh.earliestExpiry == Self.start + 70)
        now.value = Self.start + 70
        let expired = try read(test, fragment)
        #expect(expired.status == .miss)
        #expect(expired.missing == [FieldReport(path: [.key("title")], reason: .stale, record: "Article:1", field: "title",
                                                writtenAt: Self.start + 10, expiredAt: Self.start + 70)])
    }

    @Test(arguments: [
        // The options → the expiry (seconds after start), or nil for never.
        (WriteOptions(cacheControl: "max-age=600", age: "100"), 500),
        (WriteOptions(cacheControl: "max-age=600", age: "100", date: "Sun, 06 Nov 1994 08:46:17 GMT"), 400),
        (WriteOptions(date: "Sun, 06 Nov 1994 08:49:37 GMT", expires: "Sun, 06 Nov 1994 09:49:37 GMT"), 3600),
        (WriteOptions(maxAge: 60, cacheControl: "max-age=600"), 60),
        (WriteOptions(cacheControl: "no-cache"), 0),
        (WriteOptions(cacheControl: "private"), nil),
    ] as [(WriteOptions, UInt64?)])
    func theServersHeadersSetAPutsExpiry(options: WriteOptions, expiry: UInt64?) throws {
        let (test, fragment, _) = try articleCache()
        let written = try test.cache.put(json: #"{"Article:1": {"title": "One", "body": "B"}}"#, options: options)
        #expect(written == WriteResult(isStored: true, changed: ["Article:1.title", "Article:1.body"]))
        let result = try read(test, fragment, maxStale: 0)
        #expect(result.earliestExpiry == expiry.map { Self.start + $0 })
        #expect(result.status == (expiry == 0 ? .stale : .complete))
    }

    @Test func aNoStorePutWritesNothingAndParsesNothing() throws {
        let (test, _, _) = try articleCache()
        #expect(try test.cache.put(json: #"{"Article:1": {"title": "One"}}"#, options: WriteOptions(cacheControl: "no-store"))
            == WriteResult(isStored: false, changed: []))
        #expect(try test.cache.put(json: "not json", options: WriteOptions(cacheControl: "max-age=5, no-store")).isStored == false)
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }

    @Test func aMalformedHeaderFailsThePutAndLeavesTheCacheAsItWas() throws {
        let (test, fragment, _) = try articleCache()
        _ = try test.cache.put(json: #"{"Article:1": {"title": "One", "body": "B"}}"#)
        #expect(throws: NormCacheError(.invalidArgument, "Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it needs a whole number of seconds")) {
            try test.cache.put(json: #"{"Article:1": {"title": "Two"}}"#, options: WriteOptions(cacheControl: "max-age=abc"))
        }
        #expect(throws: NormCacheError(.invalidArgument, "Age: malformed value at byte 0 ('abc'): it needs a whole number of seconds")) {
            try test.cache.put(json: #"{"Article:2": {"title": "Two"}}"#, options: WriteOptions(age: "abc"))
        }
        #expect(throws: NormCacheError(.invalidArgument, "max_age 2147483648 is beyond the largest lifetime, 2147483647 seconds")) {
            try test.cache.put(json: #"{"Article:2": {"title": "Two"}}"#, options: WriteOptions(maxAge: 2_147_483_648))
        }
        #expect(try test.cache.keys(withPrefix: "") == ["Article:1"])
        #expect(try test.cache.record("Article:1") == #"{"body":"B","title":"One"}"#)
        #expect(try read(test, fragment).earliestExpiry == nil)
    }

    @Test func strictKeysChangeNothingForAPut() throws {
        let (test, _, _) = try articleCache()
        let written = try test.cache.put(json: #"{"QUERY_ROOT.feed.0": {"title": "One"}}"#, options: WriteOptions(strictKeys: true))
        #expect(written == WriteResult(isStored: true, changed: ["QUERY_ROOT.feed.0.title"], keyFallbacks: 0))
    }

    @Test func aFragmentWritesMaxAgeStampsOnlyTheFieldsItCarries() throws {
        let (test, fragment, now) = try articleCache()
        _ = try test.cache.put(json: #"{"Article:1": {"title": "One", "body": "B"}}"#)
        let titleOnly = try test.cache.prepare("fragment Title on Article { title }")
        now.value = Self.start + 5
        let written = try test.cache.writeFragment(titleOnly, key: "Article:1", data: #"{"title": "Uno"}"#,
                                                   options: WriteOptions(cacheControl: "max-age=30"))
        #expect(written == WriteResult(isStored: true, changed: ["Article:1.title"]))
        #expect(try read(test, fragment).earliestExpiry == Self.start + 35)
        now.value = Self.start + 40
        let stale = try read(test, fragment, maxStale: 10)
        #expect(stale.status == .stale && stale.data.map { String(decoding: $0, as: UTF8.self) } == #"{"title":"Uno","body":"B"}"#)
        #expect(stale.stale == [FieldReport(path: [.key("title")], reason: .stale, record: "Article:1", field: "title",
                                            writtenAt: Self.start + 5, expiredAt: Self.start + 35)])
    }

    @Test func aNoStoreFragmentWriteWritesNothing() throws {
        let (test, fragment, _) = try articleCache()
        let written = try test.cache.writeFragment(fragment, key: "Article:1", data: #"{"title": "One", "body": "B"}"#,
                                                   options: WriteOptions(cacheControl: "no-store"))
        #expect(written == WriteResult(isStored: false, changed: []))
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }

    @Test func aMalformedHeaderFailsTheFragmentWrite() throws {
        let (test, fragment, _) = try articleCache()
        #expect(throws: NormCacheError(.invalidArgument, "Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it needs a whole number of seconds")) {
            try test.cache.writeFragment(fragment, key: "Article:1", data: #"{"title": "One", "body": "B"}"#,
                                         options: WriteOptions(cacheControl: "max-age=abc"))
        }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }
}
