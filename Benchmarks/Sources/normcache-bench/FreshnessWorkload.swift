import CNormCacheABI
import Foundation

extension Bench {
    /// Workload "freshness": what judging freshness costs on the paths users call, at
    /// each feed size. Three steps interleaved on one cache file holding the feed, through
    /// two handles (so that every step reads the same pages): the plain read (a handle
    /// without max-age rules), the read with rules that reach every field (`Query.feed`
    /// 1 hour: each field's max age is resolved along its path and checked), and
    /// `normcache_execute` cache-first answered from the cache (a fetch that must not be
    /// called). The targets (N=10,000): each within 5 % of the plain read. A run's figure
    /// is the mean of `readsPerRun(posts:)` reads in a row, so that a median of a few runs
    /// tells differences of a few per cent apart.
    func runFreshness() throws {
        for posts in options.feedSizes {
            let reads = Self.readsPerRun(posts: posts)
            let targeted = posts == 10_000
            let response = Responses.feed(posts: posts)
            let path = freshPath("freshness.cache")
            defer { removeCache(path) }
            let plain = try CacheClient(path: path)
            try plain.configure(Responses.keyByID)
            let plainFeed = try plain.prepare(Responses.feedQuery)
            _ = try response.withUnsafeBytes { bytes in try plain.write(plainFeed, response: bytes) }
            let ruled = try CacheClient(path: path)
            try ruled.configure(Responses.keyByID)
            try ruled.configure(#"{"maxAges": {"Query.feed": 3600}}"#)
            let ruledFeed = try ruled.prepare(Responses.feedQuery)
            let readBytes = try plain.read(plainFeed)
            let series = try interleave([
                { try timed { for _ in 0..<reads { try plain.read(plainFeed) } } / Double(reads) },
                { try timed { for _ in 0..<reads { try ruled.read(ruledFeed) } } / Double(reads) },
                { try timed { for _ in 0..<reads { try plain.executeFromCache(plainFeed) } } / Double(reads) },
            ], label: "freshness N=\(posts), \(reads) reads a run")
            let target: Target? = targeted ? Target(kind: .ratioAtMost, bound: 1.05) : nil
            add(Figure(workload: "freshness", measure: "read with max-age rules N=\(posts)", normcache: series[1],
                       objects: 2 * posts, bytes: readBytes, baselineName: "normcache read without rules", baseline: series[0],
                       target: target))
            add(Figure(workload: "freshness", measure: "execute cache_first hit N=\(posts)", normcache: series[2],
                       objects: 2 * posts, bytes: readBytes, baselineName: "normcache read", baseline: series[0], target: target))
        }
    }

    /// The reads of the feed of `posts` posts one run of the freshness workload times:
    /// about 400,000 posts read in all (40 reads of 10,000 posts, some 110 ms here).
    private static func readsPerRun(posts: Int) -> Int {
        Swift.max(1, 400_000 / Swift.max(1, posts))
    }
}

extension CacheClient {
    /// Runs `operation` through `normcache_execute`, cache-first, with a fetch that fails:
    /// the harness calls it only on data it wrote, so the cache must answer.
    func executeFromCache(_ operation: PreparedOperation) throws {
        var options = normcache_execute_options(size: MemoryLayout<normcache_execute_options>.size,
                                                policy: Int32(NORMCACHE_CACHE_FIRST.rawValue), error_policy: 0, max_stale: -1)
        let refuse: normcache_fetch = { _, _, reply in
            let message = "the harness's cache-first execute went to the network"
            return normcache_fetch_reply_error(reply, message, strlen(message))
        }
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        let code = normcache_execute(handle, operation.pointer, nil, 0, &options, refuse, nil, nil, nil, &buffer, &length)
        normcache_free(buffer)
        try Self.check(code, "normcache_execute")
    }
}
