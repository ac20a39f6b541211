import ArgumentParser
import NormCache

/// `normcache trim`: evicts the least recently written records down to a size.
struct TrimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Evict the least recently written records until the data is at most a size.",
        discussion: """
            Removes whole records, oldest first (a record is as old as its newest field), until \
            the cache's data bytes (the pages its records hold, as normcache stats shows them; the \
            file itself never shrinks) are at most --max-bytes, in one atomic write. QUERY_ROOT, \
            MUTATION_ROOT and SUBSCRIPTION_ROOT are never evicted. Prints how many records were \
            evicted from each key group; --json prints the report of normcache_trim.

            EXAMPLE
              normcache trim app.cache --max-bytes 100000000
            """
    )

    @OptionGroup var file: CacheFile
    @Option(help: "The most data bytes to leave (0 evicts every record but the roots).")
    var maxBytes: Int
    @Flag(help: "Print the report as one JSON object.")
    var json = false

    func validate() throws {
        guard maxBytes >= 0 else { throw ValidationError("--max-bytes must be 0 or more, not \(maxBytes)") }
    }

    func run() throws {
        let cache = try file.openForWriting(creating: false)
        defer { cache.close() }
        let report = try cache.trim(toBytes: maxBytes)
        if json {
            print(String(decoding: report.json, as: UTF8.self))
            return
        }
        print("evicted \(report.records) record\(report.records == 1 ? "" : "s"), data bytes \(report.dataBytesBefore) -> \(report.dataBytesAfter)")
        for group in report.groups { print("  \(group.group)  \(group.records)") }
    }
}
