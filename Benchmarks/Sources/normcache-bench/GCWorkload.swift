import CNormCacheABI
import Foundation
import Glibc

extension Bench {
    /// Workload "gc": a store of about `gcRecords` records, half of them reachable from
    /// QUERY_ROOT (through pages of 500 references) and half reached by nothing. Each run
    /// takes a fresh copy of it (`normcache_copy`, outside the time) and measures on it,
    /// each step in a child process of its own so that its peak memory is its own: a raw
    /// LMDB cursor walk over every record of the file (the baseline), `normcache_gc` as a
    /// dry run, and `normcache_gc` removing the unreachable half, during which this
    /// process puts one record and times how long that put waits for the collection.
    func runGC() throws {
        let template = freshPath("gc-template.cache")
        defer { removeCache(template) }
        let store = try GCStore.build(at: template, records: options.gcRecords)
        progress("  gc: built \(store.records) records, \(store.unreachable) unreachable")
        var walk = GCSteps(), dryRun = GCSteps(), removal = GCSteps(), writerWaits = Series()
        for run in 0..<options.runs {
            progress("  gc: run \(run + 1)/\(options.runs)")
            let path = freshPath("gc.cache")
            defer { removeCache(path) }
            try CacheClient(path: template).copy(to: path)
            try walk.append(runChild("gc-walk", [path]), records: store.records)
            try dryRun.append(runChild("gc", [path, "dry-run", ""]), records: store.unreachable)
            let started = path + ".gc-started"
            let writer = try GCWriter(cache: path, waitingFor: started)
            try removal.append(runChild("gc", [path, "remove", started]), records: store.unreachable)
            writerWaits.append(try writer.wait())
        }
        let steps = [("dry run of \(store.records) records", dryRun), ("removing \(store.unreachable) of \(store.records)", removal)]
        for (name, step) in steps {
            add(
                Figure(
                    workload: "gc", measure: "gc \(name)", normcache: step.seconds, objects: store.records,
                    baselineName: "raw LMDB cursor walk, same file", baseline: walk.seconds))
            add(
                Figure(
                    workload: "gc", measure: "peak memory, gc \(name)", unit: .bytes, normcache: step.peakBytes,
                    baselineName: "raw LMDB cursor walk, same file", baseline: walk.peakBytes))
        }
        add(
            Figure(
                workload: "gc", measure: "another process's put during the gc: its wait", normcache: writerWaits,
                baselineName: "the gc removing", baseline: removal.seconds))
    }
}

/// The times and peak memory of one step of the gc workload, a value per run.
private struct GCSteps {
    /// The step's time in its child process.
    var seconds = Series()
    /// The peak resident memory the step added to its child process.
    var peakBytes = Series()

    /// Adds a child's result, checking that it saw (walk) or removed (gc) `records`.
    mutating func append(_ child: [String: Any], records: Int) throws {
        guard let time = child["seconds"] as? Double, let peak = child["peak_bytes"] as? Double,
            let counted = child["records"] as? Int
        else { throw BenchError("a gc child gave no time, peak or count") }
        guard counted == records else { throw BenchError("a gc child counted \(counted) records, not \(records)") }
        seconds.append(time)
        peakBytes.append(peak)
    }
}

/// The gc workload's store: pages of 500 `Item` references from QUERY_ROOT to the
/// reachable half, and as many `Junk` records that nothing refers to.
private enum GCStore {
    static let page = 500

    /// Writes the store of about `records` records to a new cache at `path`; returns its
    /// records and how many of them are unreachable.
    static func build(at path: String, records: Int) throws -> (records: Int, unreachable: Int) {
        let half = Swift.max(1, records / 2)
        let pages = (half + page - 1) / page
        let cache = try CacheClient(path: path, options: #"{"durability": "fast"}"#)
        let root = (0..<pages).map { #"{"$reference":"Page:\#($0)"}"# }.joined(separator: ",")
        try put(#"{"QUERY_ROOT":{"pages":[\#(root)]}}"#, cache)
        for first in stride(from: 0, to: half, by: page) {
            let items = first..<Swift.min(half, first + page)
            var batch = #"{"Page:\#(first / page)":{"items":["#
            batch += items.map { #"{"$reference":"Item:\#($0)"}"# }.joined(separator: ",") + "]}"
            for item in items {
                batch += #","Item:\#(item)":{"n":\#(item),"name":"item \#(item)"},"Junk:\#(item)":{"n":\#(item),"name":"junk \#(item)"}"#
            }
            try put(batch + "}", cache)
        }
        return (2 * half + pages + 1, half)
    }

    private static func put(_ json: String, _ cache: CacheClient) throws {
        try Array(json.utf8).withUnsafeBytes { _ = try cache.put($0) }
    }
}

/// Another process's writer during a gc (this process is the other one): a thread that,
/// 20 ms after the gc child has created `started`, puts one record and times the put.
private final class GCWriter {
    private let cache: CacheClient
    private let started: String
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Double, Error> = .failure(BenchError("the gc writer did not run"))

    /// Opens the cache and starts the thread.
    init(cache path: String, waitingFor started: String) throws {
        cache = try CacheClient(path: path)
        self.started = started
        Thread.detachNewThread { [self] in
            result = Result { try putOnceStarted() }
            done.signal()
        }
    }

    /// The seconds the put waited.
    func wait() throws -> Double {
        done.wait()
        try? FileManager.default.removeItem(atPath: started)
        return try result.get()
    }

    private func putOnceStarted() throws -> Double {
        let deadline = monotonicSeconds() + 600
        while access(started, F_OK) != 0 {
            guard monotonicSeconds() < deadline else { throw BenchError("the gc child never started its gc") }
            usleep(500)
        }
        usleep(20_000)
        // Reachable, so that the gc's count is the same whether the put lands before it or after.
        let record = #"{"QUERY_ROOT":{"writer":{"$reference":"Writer:1"}},"Writer:1":{"n":1}}"#
        return try Array(record.utf8).withUnsafeBytes { bytes in try timed { _ = try cache.put(bytes) } }
    }
}

extension ChildModes {
    /// A raw LMDB cursor walk over every record of the cache file: its time, the records
    /// walked, and the peak memory it added to this process.
    static func gcWalk(cache path: String) throws -> [String: Any] {
        let start = residentBytes()
        var records = 0, bytes = 0
        let seconds = try timed {
            try RawLMDB.forEachRecord(ofCache: path) { key, value in
                records += 1
                bytes += key.count + value.count
            }
        }
        return ["seconds": seconds, "records": records, "bytes": bytes, "peak_bytes": Double(peakResidentBytes() - start)]
    }

    /// Opens the cache and collects its garbage (`mode` "dry-run" or "remove"), creating
    /// the file `started` (when not empty) just before: the time of the gc, the records it
    /// found unreachable, and the peak memory the open and the gc added to this process.
    static func gc(cache path: String, mode: String, started: String) throws -> [String: Any] {
        guard mode == "dry-run" || mode == "remove" else { throw BenchError("gc: mode \(mode) is not dry-run or remove") }
        let start = residentBytes()
        let cache = try CacheClient(path: path)
        if !started.isEmpty, !FileManager.default.createFile(atPath: started, contents: nil) {
            throw BenchError("cannot create \(started)")
        }
        var report: [String: Any] = [:]
        let seconds = try timed { report = try cache.gc(dryRun: mode == "dry-run") }
        guard let unreachable = report["unreachable_records"] as? Int else { throw BenchError("normcache_gc reported no unreachable_records") }
        return ["seconds": seconds, "records": unreachable, "peak_bytes": Double(peakResidentBytes() - start)]
    }
}

extension CacheClient {
    /// `normcache_gc` of unreachable records (a dry run when `dryRun`): its report.
    func gc(dryRun: Bool) throws -> [String: Any] {
        var options = normcache_gc_options(
            size: MemoryLayout<normcache_gc_options>.size,
            flags: dryRun ? UInt32(NORMCACHE_GC_DRY_RUN) : 0, stale_grace: -1)
        var json: [UInt8] = []
        _ = try Self.output("normcache_gc", wanted: true, keep: { json = Array($0) }, { out, length in
            normcache_gc(handle, &options, out, length)
        })
        guard let report = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
            throw BenchError("normcache_gc's report is not a JSON object")
        }
        return report
    }

    /// `normcache_copy` to the new file `path`.
    func copy(to path: String) throws {
        try Self.check(path.withCString { normcache_copy(handle, $0, strlen($0)) }, "normcache_copy \(path)")
    }
}
