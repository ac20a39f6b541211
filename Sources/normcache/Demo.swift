import Glibc
import NormCache

/// The main job of the README: a cache doing its work on a file — writing a feed of
/// posts and their authors as normalized records, merging an update, reading
/// records back, and listing key groups — with what it did and how long it took.
struct Demo {
    let path: String
    let posts = 10_000
    let authors = 100

    func run() throws(NormCacheError) {
        print("normcache \(NormalizedCache.version) demo on \(path)")
        let cache = try NormalizedCache(path: path)
        defer { cache.close() }
        try cache.clear()

        let records = feedRecords()
        var changed = ChangedFields()
        let write = try timed { () throws(NormCacheError) in changed = try cache.put(json: records) }
        report("wrote \(posts) posts and \(authors) authors (\(records.utf8.count / 1024) KiB of JSON)", write,
               count: posts + authors, "\(changed.count) fields changed")

        let rewrite = try timed { () throws(NormCacheError) in changed = try cache.put(json: records) }
        report("rewrote the same records", rewrite, count: posts + authors, "\(changed.count) fields changed")

        let update = #"{"Post:7": {"score": 99, "tags": ["swift", "lmdb"]}, "User:3": {"name": "Ada L."}}"#
        changed = try cache.put(json: update)
        print("merged an update: changed \(changed)")
        print("  Post:7 = \(try cache.record("Post:7") ?? "missing")")
        print("  User:3 = \(try cache.record("User:3") ?? "missing")")

        var found = 0
        let reads = try timed { () throws(NormCacheError) in
            for id in 0..<posts where try cache.record("Post:\(id)") != nil { found += 1 }
        }
        report("read every post back (\(found) found)", reads, count: posts, "")

        var users: [String] = []
        let search = try timed { () throws(NormCacheError) in users = try cache.keys(withPrefix: "User:") }
        report("listed key group User: (\(users.count) keys)", search, count: users.count, "")
        let page = try cache.keys(withPrefix: "Post:", after: "Post:1000", limit: 5)
        print("a page of Post: after Post:1000 → \(page)")

        let removed = try cache.removeAll(withPrefix: "Post:99")
        print("removed key group Post:99 → \(removed) records")
        try graphQL(cache)
        try freshness(cache)
        try documentEntities(cache)
        print("stats: \(String(decoding: try cache.stats().json, as: UTF8.self))")
    }

    /// A GraphQL response normalized by its operation and read back, then a query that
    /// asks for more than the cache holds.
    private func graphQL(_ cache: NormalizedCache) throws(NormCacheError) {
        try cache.loadSchema("""
        type Query { feed: [Post] post(id: ID!): Post }
        type Post { id: ID! title: String score: Int summary: String author: User }
        type User { id: ID! name: String }
        extend type Post @typePolicy(keyFields: "id")
        extend type User @typePolicy(keyFields: "id")
        extend type Query @fieldPolicy(forField: "post", keyArgs: "id")
        """)
        let feed = try cache.prepare("query Feed { feed { title author { name } } }")
        print("GraphQL: the document sent for Feed adds __typename and key fields:")
        print(feed.document.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        let response = #"{"data": {"feed": [{"__typename": "Post", "id": "1", "title": "Hello", "author": {"__typename": "User", "id": "3", "name": "Ada L."}}]}}"#
        let changed = try cache.write(feed, response: response)
        print("wrote the Feed response: changed \(changed)")
        if let data = try cache.read(feed).data { print("read Feed back: \(String(decoding: data, as: UTF8.self))") }
        let post = try cache.prepare("query ($id: ID!) { post(id: $id) { title score summary } }")
        let read = try cache.read(post, variables: #"{"id": "1"}"#, options: ReadOptions(partial: true))
        let data = read.data.map { String(decoding: $0, as: UTF8.self) } ?? "null"
        if read.status == .miss {
            let missing = read.missing.map { "\($0.path.map(\.description).joined(separator: ".")) (\($0.reason.rawValue): \($0.record) \($0.field ?? ""))" }
            print("read post(id: 1) through its field policy, a miss: missing \(missing), partial data \(data)")
        } else {
            print("read post(id: 1) through its field policy: \(data)")
        }
    }

    /// A REST document cached for 30 minutes through `executeDocument` (cache-first), read
    /// again within its lifetime and after it on a clock the demo moves, then invalidated.
    private func freshness(_ cache: NormalizedCache) throws(NormCacheError) {
        let start = Int64(time(nil))
        let clock = DemoClock(start)
        cache.setClock { clock.now }
        defer { cache.setClock(nil) }
        var calls = 0
        let api = { (request: FetchRequest) throws(NormCacheError) -> FetchReply in
            calls += 1
            return FetchReply(body: Array(#"{"articles": [{"id": 1, "title": "Caching for 30 minutes"}]}"#.utf8),
                              headers: WriteOptions(cacheControl: "max-age=1800"))
        }
        for (minutes, label) in [(0, "first call"), (10, "10 minutes later"), (31, "31 minutes later")] {
            clock.now = start + Int64(minutes * 60)
            let result = try cache.executeDocument("GET /articles", fetch: api)
            print("REST feed, \(label): from the \(result.source.rawValue) (API calls so far: \(calls))")
        }
        _ = try cache.invalidate("GET /articles")
        let invalidated = try cache.document("GET /articles", options: ReadOptions(maxStale: 60))
        print("invalidated GET /articles: a read allowing 60 s of staleness gets it \(invalidated.status), reason \(invalidated.stale.first?.reason.rawValue ?? "none")")
    }

    /// REST documents whose articles are entities (`configure`'s `documents`): an article
    /// updated through its own endpoint reads updated in the page that holds it.
    private func documentEntities(_ cache: NormalizedCache) throws(NormCacheError) {
        try cache.configure(
            #"{"documents": {"prefixes": {"GET /v2/articles": "ArticlePage", "GET /v2/articles/": "Article"}, "#
                + #""types": {"ArticlePage": {"members": {"articles": "Article"}}, "Article": {"keyFields": ["id"]}}}}"#)
        try cache.putDocument("GET /v2/articles", json: #"{"articles": [{"id": 1, "title": "Caching for 30 minutes"}]}"#)
        try cache.putDocument("GET /v2/articles/1", json: #"{"id": 1, "title": "Caching for an hour"}"#)
        let page = try cache.document("GET /v2/articles").data.map { String(decoding: $0, as: UTF8.self) } ?? "a miss"
        print("REST entities: Article:1 = \(try cache.record("Article:1") ?? "missing"), so GET /v2/articles reads \(page)")
    }

    private func feedRecords() -> String {
        var parts: [String] = []
        parts.reserveCapacity(posts + authors)
        for id in 0..<authors {
            parts.append(#""User:\#(id)": {"id": "\#(id)", "name": "Author \#(id)"}"#)
        }
        for id in 0..<posts {
            parts.append(#""Post:\#(id)": {"id": "\#(id)", "title": "Post number \#(id)", "score": \#(id % 500), "published": true, "#
                + #""tags": ["news", "t\#(id % 7)"], "author": {"$reference": "User:\#(id % authors)"}}"#)
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    private func timed(_ body: () throws(NormCacheError) -> Void) throws(NormCacheError) -> Double {
        let start = monotonicSeconds()
        try body()
        return monotonicSeconds() - start
    }

    private func report(_ what: String, _ seconds: Double, count: Int, _ detail: String) {
        let rate = seconds > 0 ? Int(Double(count) / seconds) : 0
        let ms = (seconds * 1e4).rounded() / 10
        print("\(what): \(ms) ms, \(rate) records/s\(detail.isEmpty ? "" : ", " + detail)")
    }
}

/// The seconds of the monotonic clock.
private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The demo's clock: the time it moves by hand, in seconds since 1970.
private final class DemoClock: @unchecked Sendable {
    var now: Int64
    init(_ start: Int64) { now = start }
}
