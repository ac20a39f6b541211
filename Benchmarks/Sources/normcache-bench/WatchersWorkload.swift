import CNormCacheABI
import Foundation
import Glibc

extension Bench {
    /// Workload 10, watchers: what a watcher costs the writes that wake it and those
    /// that do not, against the same puts with no watcher, and how long another
    /// process's commit takes to reach a watcher that waits for it
    /// (`normcache_wait_commit` + `normcache_dispatch_changes`).
    func runWatchers() throws {
        let count = options.watcherWrites
        let puts = (0..<count).map { Array(#"{"Counter:1": {"n": \#($0)}}"#.utf8) }
        func putAll(watching key: String?) throws -> Double {
            let path = freshPath("watch.cache")
            defer { removeCache(path) }
            let cache = try CacheClient(path: path, options: #"{"durability": "fast"}"#)
            try Array(#"{"QUERY_ROOT": {"counter": {"$reference": "Counter:1"}, "other": {"$reference": "Other:1"}}, "Counter:1": {"n": -1}, "Other:1": {"n": 0}}"#.utf8)
                .withUnsafeBytes { _ = try cache.put($0) }
            let watcher = try key.map { try WatchClient(cache: cache, query: "{ \($0) { n } }") }
            let seconds = try timed { for put in puts { try put.withUnsafeBytes { _ = try cache.put($0) } } }
            if let watcher, key == "counter", watcher.deliveries != count + 1 {
                throw BenchError("the watcher got \(watcher.deliveries) results of \(count + 1)")
            }
            return seconds
        }
        let series = try interleave([
            { try putAll(watching: "counter") }, { try putAll(watching: "other") }, { try putAll(watching: nil) },
        ], label: "watchers")
        add(Figure(workload: "watchers", measure: "\(count) puts, each waking a watcher (its read and callback included)",
                   normcache: series[0], objects: count, baselineName: "the same puts, no watcher", baseline: series[2]))
        add(Figure(workload: "watchers", measure: "\(count) puts that wake no watcher (one watches another record)",
                   normcache: series[1], objects: count, baselineName: "the same puts, no watcher", baseline: series[2],
                   target: Target(kind: .ratioAtMost, bound: 1.1)))

        let path = freshPath("watch-processes.cache")
        defer { removeCache(path) }
        let cache = try CacheClient(path: path)
        try Array(#"{"QUERY_ROOT": {"clock": {"$reference": "Clock:1"}}, "Clock:1": {"t": 0}}"#.utf8).withUnsafeBytes { _ = try cache.put($0) }
        let watcher = try WatchClient(cache: cache, query: "{ clock { t } }")
        let commits = options.watcherCrossProcessCommits
        let child = try startChild("stamp-commits", [path, String(commits)])
        // Commits that land between two dispatches reach the watcher as one result (the
        // newest): each result is timed from the commit it shows.
        var seen = try cache.lastCommit()
        while true {
            if try cache.waitCommit(after: seen, timeoutMilliseconds: 200) == nil {
                guard child.isRunning else { break }
                continue
            }
            seen = try cache.dispatchChanges()
        }
        child.waitUntilExit()
        guard !watcher.latencies.isEmpty else { throw BenchError("no commit of the child reached the watcher") }
        add(Figure(workload: "watchers", measure: "another process's commit to the callback (wait_commit + dispatch)",
                   normcache: Series(values: watcher.latencies), objects: 1, target: Target(kind: .valueBelow, bound: 0.010)))
    }

    /// Starts this harness as a child process in `mode`, without waiting for it.
    func startChild(_ mode: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executablePath)
        process.arguments = ["--child", mode] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.standardError
        try process.run()
        return process
    }
}

extension ChildModes {
    /// Writes `commits` commits of `{"Clock:1": {"t": <monotonic seconds>}}`, 2 ms apart,
    /// for the parent's watcher to measure each one's way to its callback.
    static func stampCommits(cache path: String, commits: Int) throws -> [String: Any] {
        let cache = try CacheClient(path: path)
        for _ in 0..<commits {
            usleep(2000)
            try Array(#"{"Clock:1": {"t": \#(monotonicSeconds())}}"#.utf8).withUnsafeBytes { _ = try cache.put($0) }
        }
        return ["commits": commits]
    }
}

/// A watcher through the C interface: counts its results, and for a `{ clock { t } }`
/// watch, how long ago (monotonic clock, shared by processes) each result's `t` was.
final class WatchClient {
    private var watcher: OpaquePointer?
    private let operation: PreparedOperation
    /// The results delivered.
    private(set) var deliveries = 0
    /// Seconds from each stamped commit to its delivery (the first, the current state, left out).
    private(set) var latencies: [Double] = []

    init(cache: CacheClient, query: String) throws {
        operation = try cache.prepare(query)
        let context = Unmanaged.passUnretained(self).toOpaque()
        try CacheClient.check(normcache_watch(cache.handle, operation.pointer, nil, 0, nil, 0, { context, status, json, length in
            let client = Unmanaged<WatchClient>.fromOpaque(context!).takeUnretainedValue()
            client.delivered(status: status, json: UnsafeRawBufferPointer(start: json, count: length))
        }, context, &watcher), "normcache_watch")
    }

    deinit { normcache_unwatch(watcher) }

    private func delivered(status: Int32, json: UnsafeRawBufferPointer) {
        let now = monotonicSeconds()
        deliveries += 1
        guard deliveries > 1, let text = String(bytes: json, encoding: .utf8), let start = text.range(of: #""t":"#),
              let stamp = Double(text[start.upperBound...].prefix { $0.isNumber || $0 == "." || $0 == "e" || $0 == "-" }) else { return }
        latencies.append(now - stamp)
    }
}

extension CacheClient {
    /// `normcache_last_commit`.
    func lastCommit() throws -> UInt64 {
        var commit: UInt64 = 0
        try Self.check(normcache_last_commit(handle, &commit), "normcache_last_commit")
        return commit
    }

    /// `normcache_wait_commit`: the newest commit, or nil on a timeout.
    func waitCommit(after: UInt64, timeoutMilliseconds: Int32) throws -> UInt64? {
        var newest: UInt64 = 0
        let code = normcache_wait_commit(handle, after, timeoutMilliseconds, &newest)
        if code == NORMCACHE_TIMEOUT { return nil }
        try Self.check(code, "normcache_wait_commit")
        return newest
    }

    /// `normcache_dispatch_changes`: the newest commit handed over.
    func dispatchChanges() throws -> UInt64 {
        var newest: UInt64 = 0
        try Self.check(normcache_dispatch_changes(handle, &newest), "normcache_dispatch_changes")
        return newest
    }
}
