import Foundation
import Glibc

/// The modes the harness runs itself in as a child process (`--child MODE ...`), for
/// figures that need a fresh process: each prints one JSON object.
enum ChildModes {
    /// Runs `mode` with `arguments` and prints its JSON result.
    static func run(_ mode: String, _ arguments: [String]) throws {
        let result: [String: Any]
        switch (mode, arguments.count) {
        case ("large-memory", 2): result = try largeMemory(response: arguments[0], cache: arguments[1])
        case ("open-read", 1): result = try openRead(cache: arguments[0])
        case ("stamp-commits", 2):
            guard let commits = Int(arguments[1]) else { throw BenchError("stamp-commits: bad count") }
            result = try stampCommits(cache: arguments[0], commits: commits)
        case ("load", 3):
            guard let seconds = Double(arguments[1]), let seed = UInt64(arguments[2]) else {
                throw BenchError("load: bad seconds or seed")
            }
            result = try load(cache: arguments[0], seconds: seconds, seed: seed)
        case ("gc-walk", 1): result = try gcWalk(cache: arguments[0])
        case ("gc", 3): result = try gc(cache: arguments[0], mode: arguments[1], started: arguments[2])
        default: throw BenchError("unknown child mode \(mode) with \(arguments.count) arguments")
        }
        FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: result))
    }

    /// Writes and reads the large response into a new cache, holding the response
    /// throughout, as a caller that writes what it fetched and reads it back. Reports the
    /// resident set at the start and its peak over both; the peak of each phase (the
    /// high-water mark is reset between them); what the write left resident after it
    /// returned; the bytes of the pages the write added to the file (its transaction's
    /// dirty pages: the cache was new); and, for the read, the file pages it mapped and
    /// its output.
    private static func largeMemory(response path: String, cache cachePath: String) throws -> [String: Any] {
        let start = residentBytes()
        guard let response = FileManager.default.contents(atPath: path) else { throw BenchError("cannot read \(path)") }
        let cache = try CacheClient(path: cachePath)
        try cache.configure(Responses.keyByID)
        let operation = try cache.prepare(Responses.largeQuery)
        let before = try cache.statNumber("bytes_used")
        let beforeWrite = residentBytes()
        try response.withUnsafeBytes { _ = try cache.write(operation, response: $0) }
        let writePeak = peakResidentBytes()
        let kept = residentBytes() - beforeWrite
        let written = try cache.statNumber("bytes_used") - before
        try resetPeakResidentBytes()
        let fileBeforeRead = residentFileBytes()
        let output = try cache.read(operation)
        let readPeak = peakResidentBytes()
        return ["start_bytes": Double(start), "peak_bytes": Double(max(writePeak, readPeak)),
                "write_peak_bytes": Double(writePeak), "read_peak_bytes": Double(readPeak),
                "kept_bytes": Double(kept), "written_bytes": Double(written),
                "mapped_bytes": Double(residentFileBytes() - fileBeforeRead), "output_bytes": Double(output)]
    }

    /// The peak resident set of this process image (VmHWM of /proc/self/status), since
    /// its start or the last `resetPeakResidentBytes()`. `getrusage`'s ru_maxrss would
    /// not do: across the parent's fork and the exec it keeps the parent's high-water
    /// mark.
    static func peakResidentBytes() -> Int {
        statusKilobytes("VmHWM:") * 1024
    }

    /// The file-backed part of the resident set (RssFile): pages of mapped files, as
    /// the cache file's pages a read maps.
    static func residentFileBytes() -> Int {
        statusKilobytes("RssFile:") * 1024
    }

    /// Resets the peak resident set to the current one (Linux's `clear_refs`, value 5).
    static func resetPeakResidentBytes() throws {
        guard let file = fopen("/proc/self/clear_refs", "w") else { throw BenchError("cannot open /proc/self/clear_refs") }
        defer { fclose(file) }
        guard fputs("5", file) >= 0 else { throw BenchError("cannot reset the peak resident set") }
    }

    /// The value of a kilobyte line (`VmHWM:`, `RssFile:`) of /proc/self/status; 0
    /// when it cannot be read.
    private static func statusKilobytes(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes
    }

    /// Opens the cache, prepares the feed query, reads it and closes: the time of it all.
    private static func openRead(cache path: String) throws -> [String: Any] {
        let start = monotonicSeconds()
        let cache = try CacheClient(path: path)
        let opened = monotonicSeconds()
        let operation = try cache.prepare(Responses.feedQuery)
        let bytes = try cache.read(operation)
        let total = monotonicSeconds() - start
        return ["total": total, "open": opened - start, "read_bytes": bytes]
    }

    /// One writer and one reader thread on the cache for `seconds`.
    private static func load(cache path: String, seconds: Double, seed: UInt64) throws -> [String: Any] {
        let cache = try CacheClient(path: path)
        let counts = try CacheLoad.run(cache, writers: 1, readers: 1, seconds: seconds, seed: seed)
        return ["writes": counts.writes, "reads": counts.reads]
    }

    /// The resident set size now, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
