import ArgumentParser
import NormCache

/// `normcache stats`: the size of a cache, its key groups, and the age of its data.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Print the records, bytes and key groups of a cache, and its oldest and newest write.",
        discussion: """
            A key group is a key's text up to its first ':' (Pet:), or up to its first '.' when that \
            comes first (QUERY_ROOT). Bytes are those of the keys and encoded records; "bytes used" \
            counts the file's pages, free ones too (the file never shrinks); "data bytes" those \
            the records hold, which normcache trim and the max_bytes option bound. "saved rules" is the fingerprint of the schema and key rules \
            saved in the file (see normcache rules), or - when it has none. Times are UTC; with \
            --json, seconds since 1970.

            EXAMPLE
              normcache stats app.cache --json
            """
    )

    @OptionGroup var file: CacheFile
    @Flag(help: "Print one JSON object: the fields of normcache_stats, \"groups\", \"oldest_write\" and \"newest_write\".")
    var json = false

    func run() throws {
        let cache = try file.openForReading()
        defer { cache.close() }
        let stats = try cache.stats()
        let groups = try cache.keyGroupStats()
        let oldest = groups.map(\.oldestWrite).min(), newest = groups.map(\.newestWrite).max()
        if json {
            var text = String(decoding: stats.json.dropLast(), as: UTF8.self)
            let members = groups.map { group in
                "{\"group\":\(Output.quoted(group.group)),\"records\":\(group.records),\"bytes\":\(group.bytes),"
                    + "\"oldest_write\":\(group.oldestWrite),\"newest_write\":\(group.newestWrite)}"
            }
            text += ",\"groups\":[\(members.joined(separator: ","))],"
            text += "\"oldest_write\":\(oldest.map(String.init) ?? "null"),\"newest_write\":\(newest.map(String.init) ?? "null")}"
            print(text)
            return
        }
        print("records       \(stats.records)")
        print("bytes used    \(stats.bytesUsed)")
        print("data bytes    \(stats.dataBytes) (commit log \(stats.logBytes))")
        print("map size      \(stats.mapSize)")
        print("format        \(stats.formatVersion)")
        print("saved rules   \(stats.savedRulesFingerprint ?? "-")")
        print("readers       \(stats.readers) reading, \(stats.readerSlots) of \(stats.maxReaders) slots taken, "
              + "oldest \(stats.oldestReaderLag) commits behind")
        print("oldest write  \(oldest.map(Output.time) ?? "-")")
        print("newest write  \(newest.map(Output.time) ?? "-")")
        guard !groups.isEmpty else { return }
        let width = max(5, groups.map(\.group.count).max() ?? 0)
        func padded(_ text: String, _ count: Int) -> String { text + String(repeating: " ", count: max(0, count - text.count)) }
        func right(_ text: String, _ count: Int) -> String { String(repeating: " ", count: max(0, count - text.count)) + text }
        print("")
        print("\(padded("group", width))  \(right("records", 10))  \(right("bytes", 12))  \(padded("oldest write", 20))  newest write")
        for group in groups {
            print("\(padded(group.group, width))  \(right(String(group.records), 10))  \(right(String(group.bytes), 12))  "
                  + "\(Output.time(group.oldestWrite))  \(Output.time(group.newestWrite))")
        }
    }
}
