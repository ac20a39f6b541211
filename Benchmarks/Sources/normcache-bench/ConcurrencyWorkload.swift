import Foundation

/// The operations one thread or process completed in a timed load.
struct LoadCounts {
    /// Durable single-record writes.
    var writes = 0
    /// Single-record reads.
    var reads = 0
}

/// A timed load on one cache: a writer thread putting single records durably and
/// reader threads getting random records, all on one handle.
enum CacheLoad {
    /// The records the load reads and rewrites.
    static let keys = 1_000

    /// Fills the cache at `path` with the load's records.
    static func prepare(_ cache: CacheClient) throws {
        try Responses.groupRecords(group: "Account", first: 0, count: keys).withUnsafeBytes { _ = try cache.put($0) }
    }

    /// The keys of the load's records, made before a load starts: the reads time the
    /// gets, not the making of keys, as the raw load's gets of ready keys do.
    static let recordKeys: [[UInt8]] = (0..<keys).map { Array("Account:\(Responses.paddedNumber($0))".utf8) }

    /// Runs `writers` writer and `readers` reader threads on `cache` for `seconds`; each
    /// write changes the value of a record, so that every write commits.
    static func run(_ cache: CacheClient, writers: Int, readers: Int, seconds: Double, seed: UInt64) throws -> LoadCounts {
        let recordKeys = Self.recordKeys
        return try runThreads(writers: writers, readers: readers, seconds: seconds, seed: seed,
                       write: { number, revision in
                           _ = try Responses.groupRecords(group: "Account", first: number, count: 1, revision: revision)
                               .withUnsafeBytes { try cache.put($0) }
                       },
                       read: { number in
                           _ = try recordKeys[number].withUnsafeBytes { try cache.get($0) }
                       })
    }

    /// The same load on raw LMDB: durable single-record commits of `records`' values and
    /// gets copying values out.
    static func runRaw(_ raw: RawLMDB, records: RecordSet, readers: Int, seconds: Double) throws -> LoadCounts {
        let singles = (0..<records.count).map { index -> RecordSet in
            var single = RecordSet()
            records.withStorage { storage in
                let pair = records.pairs[index]
                single.append(key: UnsafeRawBufferPointer(rebasing: storage[pair.keyOffset..<(pair.keyOffset + pair.keyLength)]),
                              value: UnsafeRawBufferPointer(rebasing: storage[pair.valueOffset..<(pair.valueOffset + pair.valueLength)]))
            }
            return single
        }
        return try runThreads(writers: 1, readers: readers, seconds: seconds, seed: 5,
                              write: { number, _ in try raw.putEach(singles[number]) },
                              read: { number in
                                  var output: [UInt8] = []
                                  try raw.getEach(singles[number], into: &output)
                              })
    }

    private static func runThreads(writers: Int, readers: Int, seconds: Double, seed: UInt64,
                                   write: @escaping (Int, Int) throws -> Void, read: @escaping (Int) throws -> Void) throws -> LoadCounts {
        let threads = writers + readers
        let counts = Counters(threads)
        let failure = Failure()
        let done = DispatchGroup()
        let deadline = monotonicSeconds() + seconds
        for thread in 0..<threads {
            done.enter()
            Thread {
                var random = SplitMix(seed: seed &+ UInt64(thread))
                do {
                    while monotonicSeconds() < deadline, failure.error == nil {
                        let number = Int(random.next() % UInt64(keys))
                        if thread < writers { try write(number, counts[thread] + 1) } else { try read(number) }
                        counts[thread] += 1
                    }
                } catch {
                    failure.error = error
                }
                done.leave()
            }.start()
        }
        done.wait()
        if let error = failure.error { throw error }
        return LoadCounts(writes: (0..<writers).reduce(0) { $0 + counts[$1] },
                          reads: (writers..<threads).reduce(0) { $0 + counts[$1] })
    }

    /// One operation count per thread, each written by its thread alone.
    private final class Counters: @unchecked Sendable {
        private let counts: UnsafeMutableBufferPointer<Int>
        init(_ threads: Int) {
            counts = .allocate(capacity: threads)
            counts.initialize(repeating: 0)
        }
        deinit { counts.deallocate() }
        subscript(thread: Int) -> Int {
            get { counts[thread] }
            set { counts[thread] = newValue }
        }
    }

    /// The first error of any thread.
    private final class Failure: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Error?
        var error: Error? {
            get { lock.withLock { stored } }
            set { lock.withLock { if stored == nil { stored = newValue } } }
        }
    }
}

extension Bench {
    /// Workload 6, concurrency: 1 writer and 2 reader threads on one handle against the
    /// same threads on raw LMDB; then 2 processes on one file, each with a writer and a
    /// reader thread. Figures are the time per operation under load.
    func runConcurrency() throws {
        let seconds = options.concurrencySeconds
        let primePath = freshPath("load-prime.cache")
        do { try CacheLoad.prepare(try CacheClient(path: primePath)) }
        let records = try RawLMDB.records(ofCache: primePath)
        removeCache(primePath)

        var cacheCounts: [LoadCounts] = [], rawCounts: [LoadCounts] = []
        _ = try interleave([
            { [self] in
                let path = freshPath("load.cache")
                defer { removeCache(path) }
                let cache = try CacheClient(path: path)
                try CacheLoad.prepare(cache)
                cacheCounts.append(try CacheLoad.run(cache, writers: 1, readers: 2, seconds: seconds, seed: 5))
                return seconds
            },
            { [self] in
                let path = freshPath("load-raw.lmdb")
                defer { removeCache(path) }
                let raw = try RawLMDB(path: path, mapSize: 64 << 20)
                try raw.putAll(records)
                rawCounts.append(try CacheLoad.runRaw(raw, records: records, readers: 2, seconds: seconds))
                return seconds
            },
        ], label: "1 writer + 2 readers, \(format(seconds)) s per run")
        let perWrite = { (counts: [LoadCounts]) in Series(values: counts.map { seconds / Double(Swift.max(1, $0.writes)) }) }
        let perRead = { (counts: [LoadCounts]) in Series(values: counts.map { 2 * seconds / Double(Swift.max(1, $0.reads)) }) }
        add(Figure(workload: "concurrency", measure: "threads: durable write, 1 writer + 2 readers", normcache: perWrite(cacheCounts),
                   objects: 1, baselineName: "raw LMDB, same threads", baseline: perWrite(rawCounts)))
        add(Figure(workload: "concurrency", measure: "threads: read, 1 writer + 2 readers", normcache: perRead(cacheCounts),
                   objects: 1, baselineName: "raw LMDB, same threads", baseline: perRead(rawCounts),
                   target: Target(kind: .ratioAtMost, bound: 1.5)))

        var processCounts: [LoadCounts] = []
        for run in 0..<options.runs {
            progress("  2 processes, \(format(seconds)) s: run \(run + 1)/\(options.runs)")
            let path = freshPath("processes.cache")
            do { try CacheLoad.prepare(try CacheClient(path: path)) }
            let children = try runChildren("load", [[path, String(seconds), "1"], [path, String(seconds), "2"]])
            processCounts.append(children.reduce(LoadCounts()) { total, child in
                LoadCounts(writes: total.writes + (child["writes"] as? Int ?? 0), reads: total.reads + (child["reads"] as? Int ?? 0))
            })
            removeCache(path)
        }
        add(Figure(workload: "concurrency", measure: "2 processes: durable write, each 1 writer + 1 reader",
                   normcache: perWrite(processCounts), objects: 1))
        add(Figure(workload: "concurrency", measure: "2 processes: read, each 1 writer + 1 reader",
                   normcache: perRead(processCounts), objects: 1))
    }

    /// Runs this harness as several child processes at once, one per argument list, and
    /// returns the JSON object each prints.
    func runChildren(_ mode: String, _ argumentLists: [[String]]) throws -> [[String: Any]] {
        let running = try argumentLists.map { arguments -> (Process, Pipe) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.executablePath)
            process.arguments = ["--child", mode] + arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.standardError
            try process.run()
            return (process, output)
        }
        return try running.map { process, output in
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0,
                  let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw BenchError("child \(mode) failed with status \(process.terminationStatus)")
            }
            return object
        }
    }
}
