import TestSupport
import Testing
@testable import NormCache

/// `execute` under each fetch policy, with a fetch closure that counts its calls and a
/// clock the test sets: where each result comes from, what is written, the user's
/// selection returned (never the fields the network document adds), fetch failures and
/// their fallbacks, GraphQL errors under each error policy, and replies that cannot be
/// written.
@Suite struct ExecuteTests {
    static let start: UInt64 = 1_700_000_000
    static let sdl = """
        type Query { feed(first: Int): [Article] }
        type Mutation { like(id: ID!): Article }
        type Subscription { updates: Article }
        type Article { id: ID! title: String likes: Int }
        extend type Article @typePolicy(keyFields: "id")
        """
    static let feedQuery = "query Feed($n: Int) { feed(first: $n) { title } }"
    static let reply = #"{"data": {"feed": [{"__typename": "Article", "id": "1", "title": "One"}, {"__typename": "Article", "id": "2", "title": "Two"}]}}"#
    static let data = #"{"feed":[{"title":"One"},{"title":"Two"}]}"#

    /// A network that answers `body` with `headers`, or fails, and remembers what it was asked.
    final class Network: @unchecked Sendable {
        var body = ExecuteTests.reply
        var headers = WriteOptions()
        var failure: NormCacheError?
        var requests: [FetchRequest] = []

        func fetch(_ request: FetchRequest) throws(NormCacheError) -> FetchReply {
            requests.append(request)
            if let failure { throw failure }
            return FetchReply(body: Array(body.utf8), headers: headers)
        }
    }

    func setUp(_ configuration: String? = nil) throws -> (TestCache, PreparedOperation, Network, Counter) {
        let now = Counter(start: Self.start)
        let test = try TestCache(clock: { now.value })
        try test.cache.loadSchema(Self.sdl)
        if let configuration { try test.cache.configure(configuration) }
        return (test, try test.cache.prepare(Self.feedQuery), Network(), now)
    }

    /// Runs `execute` and collects the results it delivered.
    func run(_ test: TestCache, _ operation: PreparedOperation, _ network: Network, _ options: ExecuteOptions = ExecuteOptions())
        throws(NormCacheError) -> (last: ExecutionResult, all: [ExecutionResult]) {
        var all: [ExecutionResult] = []
        let last = try test.cache.execute(operation, variables: #"{"n": 2}"#, options: options, fetch: network.fetch) { all.append($0) }
        return (last, all)
    }

    func summary(_ results: [ExecutionResult]) -> [String] {
        results.map { "\($0.source.rawValue) \($0.read.status) " + String(decoding: $0.read.data ?? Array("null".utf8), as: UTF8.self) }
    }

    @Test func cacheFirstFetchesOnAMissThenAnswersFromTheCacheUntilTheDataExpires() throws {
        let (test, feed, network, now) = try setUp()
        network.headers = WriteOptions(cacheControl: "max-age=1800")
        let first = try run(test, feed, network)
        #expect(summary(first.all) == ["network complete \(Self.data)"])
        #expect(network.requests.count == 1)
        #expect(network.requests[0].document == feed.document && network.requests[0].operationName == "Feed")
        #expect(network.requests[0].variables == Array(#"{"n": 2}"#.utf8))
        now.value = Self.start + 1799
        #expect(summary(try run(test, feed, network).all) == ["cache complete \(Self.data)"])
        #expect(network.requests.count == 1)
        now.value = Self.start + 1800
        #expect(summary(try run(test, feed, network).all) == ["network complete \(Self.data)"])
        #expect(network.requests.count == 2)
    }

    @Test func cacheOnlyNeverFetches() throws {
        let (test, feed, network, _) = try setUp()
        let missed = try run(test, feed, network, ExecuteOptions(policy: .cacheOnly))
        #expect(missed.last.source == .cache && missed.last.read.status == .miss && network.requests.isEmpty)
        #expect(missed.last.read.missing.map(\.field) == ["feed(first:2)"])
        _ = try test.cache.write(feed, response: Self.reply, variables: #"{"n": 2}"#)
        #expect(summary(try run(test, feed, network, ExecuteOptions(policy: .cacheOnly)).all) == ["cache complete \(Self.data)"])
    }

    @Test func networkOnlyAlwaysFetchesAndWrites() throws {
        let (test, feed, network, _) = try setUp()
        _ = try run(test, feed, network, ExecuteOptions(policy: .networkOnly))
        network.body = #"{"data": {"feed": [{"__typename": "Article", "id": "1", "title": "Uno"}]}}"#
        #expect(summary(try run(test, feed, network, ExecuteOptions(policy: .networkOnly)).all) == [#"network complete {"feed":[{"title":"Uno"}]}"#])
        #expect(network.requests.count == 2)
        #expect(try test.cache.record("Article:1") == #"{"__typename":"Article","id":"1","title":"Uno"}"#)
    }

    @Test func noStoreReturnsTheNetworksDataAndWritesNothing() throws {
        let (test, feed, network, _) = try setUp()
        #expect(summary(try run(test, feed, network, ExecuteOptions(policy: .noStore)).all) == ["network complete \(Self.data)"])
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
        // A no-store reply under any policy: the same.
        network.headers = WriteOptions(cacheControl: "no-store")
        #expect(summary(try run(test, feed, network).all) == ["network complete \(Self.data)"])
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }

    @Test func networkFirstFallsBackToTheCacheWithTheFetchError() throws {
        let (test, feed, network, now) = try setUp(#"{"maxAges": {"Query.feed": 60}}"#)
        network.failure = NormCacheError(.fetch, "connection refused")
        #expect(throws: NormCacheError(.fetch, "connection refused")) { try run(test, feed, network, ExecuteOptions(policy: .networkFirst)) }
        network.failure = nil
        _ = try run(test, feed, network, ExecuteOptions(policy: .networkFirst))
        network.failure = NormCacheError(.fetch, "connection refused")
        now.value = Self.start + 100
        // Stale by 40 s: used only within max_stale.
        #expect(throws: NormCacheError(.fetch, "connection refused")) { try run(test, feed, network, ExecuteOptions(policy: .networkFirst)) }
        let fallback = try run(test, feed, network, ExecuteOptions(policy: .networkFirst, maxStale: 40))
        #expect(summary(fallback.all) == ["cache stale \(Self.data)"])
        #expect(fallback.last.fetchError == "connection refused")
        // Not a fetch failure: no fallback.
        network.failure = NormCacheError(.callback, "the fetch callback crashed")
        #expect(throws: NormCacheError(.callback, "the fetch callback crashed")) {
            try run(test, feed, network, ExecuteOptions(policy: .networkFirst, maxStale: 40))
        }
    }

    @Test func cacheAndNetworkGivesTheCachedDataFirst() throws {
        let (test, feed, network, _) = try setUp()
        #expect(summary(try run(test, feed, network, ExecuteOptions(policy: .cacheAndNetwork)).all) == ["network complete \(Self.data)"])
        network.body = #"{"data": {"feed": [{"__typename": "Article", "id": "1", "title": "Uno"}]}}"#
        #expect(summary(try run(test, feed, network, ExecuteOptions(policy: .cacheAndNetwork)).all)
            == ["cache complete \(Self.data)", #"network complete {"feed":[{"title":"Uno"}]}"#])
    }

    @Test func staleWhileRevalidateFetchesOnlyWhenSomethingWasStale() throws {
        let (test, feed, network, now) = try setUp(#"{"maxAges": {"Query.feed": 60}}"#)
        let options = ExecuteOptions(policy: .staleWhileRevalidate, maxStale: 3600)
        #expect(summary(try run(test, feed, network, options).all) == ["network complete \(Self.data)"])
        now.value = Self.start + 59
        #expect(summary(try run(test, feed, network, options).all) == ["cache complete \(Self.data)"])
        #expect(network.requests.count == 1)
        now.value = Self.start + 61
        let revalidated = try run(test, feed, network, options)
        #expect(summary(revalidated.all) == ["cache stale \(Self.data)", "network complete \(Self.data)"])
        #expect(revalidated.all[0].read.stale.map(\.field) == ["feed(first:2)", "title", "title"])
        // The fetch refreshed the times: fresh again.
        #expect(summary(try run(test, feed, network, options).all) == ["cache complete \(Self.data)"])
        // A failed revalidation keeps the stale data, with the error.
        now.value = Self.start + 200
        network.failure = NormCacheError(.fetch, "offline")
        let offline = try run(test, feed, network, options)
        #expect(summary(offline.all) == ["cache stale \(Self.data)", "cache stale \(Self.data)"])
        #expect(offline.last.fetchError == "offline")
    }

    @Test func aMutationAlwaysGoesToTheNetwork() throws {
        let (test, _, network, _) = try setUp()
        let like = try test.cache.prepare(#"mutation { like(id: "1") { likes } }"#)
        network.body = #"{"data": {"like": {"__typename": "Article", "id": "1", "likes": 5}}}"#
        let result = try test.cache.execute(like, options: ExecuteOptions(policy: .cacheOnly), fetch: network.fetch)
        #expect(result.source == .network && result.read.data == Array(#"{"like":{"likes":5}}"#.utf8))
        #expect(try test.cache.record("Article:1") == #"{"__typename":"Article","id":"1","likes":5}"#)
        #expect(try test.cache.record("MUTATION_ROOT") == nil)
        network.body = #"{"data": {"like": {"__typename": "Article", "id": "1", "likes": 6}}}"#
        let unstored = try test.cache.execute(like, options: ExecuteOptions(policy: .noStore), fetch: network.fetch)
        #expect(unstored.read.data == Array(#"{"like":{"likes":6}}"#.utf8))
        #expect(try test.cache.record("Article:1") == #"{"__typename":"Article","id":"1","likes":5}"#)
        let updates = try test.cache.prepare("subscription { updates { title } }")
        #expect(throws: NormCacheError(.invalidArgument, "'the subscription' is a subscription: execute runs queries and mutations")) {
            try test.cache.execute(updates, fetch: network.fetch)
        }
    }

    @Test func graphQLErrorsFollowTheErrorPolicy() throws {
        let (test, feed, network, _) = try setUp()
        network.body = #"{"data": {"feed": [{"__typename": "Article", "id": "1", "title": null}]}, "errors": [{"message": "title is private", "path": ["feed", 0, "title"]}]}"#
        #expect(throws: NormCacheError(.graphQL, "the response carries GraphQL errors (1 error, the first: 'title is private'); nothing was written (error policy none)")) {
            try run(test, feed, network)
        }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
        let ignored = try run(test, feed, network, ExecuteOptions(errorPolicy: .ignore))
        #expect(ignored.last.read.data == Array(#"{"feed":[{"title":null}]}"#.utf8) && ignored.last.errors == nil)
        let all = try run(test, feed, network, ExecuteOptions(policy: .networkOnly, errorPolicy: .all))
        #expect(all.last.errors == Array(#"[{"message": "title is private", "path": ["feed", 0, "title"]}]"#.utf8))
        // No data beside the errors: nothing written, no data returned, whatever the cache holds.
        network.body = #"{"data": null, "errors": [{"message": "rate limited"}]}"#
        let none = try run(test, feed, network, ExecuteOptions(policy: .networkOnly, errorPolicy: .ignore))
        #expect(none.last.source == .network && none.last.read == ReadResult(status: .miss, data: nil, missing: [
            FieldReport(path: [], reason: .absent, record: "QUERY_ROOT", field: nil),
        ]))
    }

    @Test func aReplyThatCannotBeWrittenFailsAndWritesNothing() throws {
        let (test, feed, network, _) = try setUp()
        network.body = "<html>502 Bad Gateway</html>"
        #expect(throws: NormCacheError.self) { try run(test, feed, network) }
        network.body = #"{"feed": []}"#
        #expect(throws: NormCacheError(.data, #"the response has no 'data' envelope: its member 'feed' is a field of the operation; pass {"data": <this object>}"#)) {
            try run(test, feed, network)
        }
        network.body = Self.reply
        network.headers = WriteOptions(cacheControl: "max-age=\"60")
        #expect(throws: NormCacheError.self) { try run(test, feed, network) }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }

    @Test func theClockIsAskedOncePerReadAndOncePerNetworkAnswer() throws {
        let (test, feed, network, _) = try setUp()
        let asked = Counter(start: 0)
        test.cache.setClock {
            asked.value += 1
            return Int64(Self.start)
        }
        _ = try run(test, feed, network, ExecuteOptions(policy: .networkOnly))
        #expect(asked.value == 1)
        _ = try run(test, feed, network, ExecuteOptions(policy: .cacheAndNetwork))
        #expect(asked.value == 3)
        _ = try test.cache.executeDocument("GET /articles", options: ExecuteOptions(policy: .networkOnly)) { (_) throws(NormCacheError) in
            FetchReply(body: Array("[]".utf8))
        }
        #expect(asked.value == 4)
    }

    @Test func theFetchMayUseTheCache() throws {
        let (test, feed, network, _) = try setUp()
        _ = try test.cache.put(json: #"{"Article:9": {"title": "Nine"}}"#)
        var seen: String?
        let result = try test.cache.execute(feed, variables: #"{"n": 2}"#, fetch: { (request) throws(NormCacheError) -> FetchReply in
            seen = try test.cache.record("Article:9")
            return try network.fetch(request)
        })
        #expect(seen == #"{"title":"Nine"}"# && result.read.status == .complete)
    }
}
