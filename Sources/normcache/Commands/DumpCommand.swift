import ArgumentParser
import NormCache

/// `normcache dump`: every record as JSON lines, from one consistent snapshot.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print every record as a JSON line: {\"key\": KEY, \"record\": {...}}.",
        discussion: """
            The records come in key order from one read transaction of a read-only handle: a \
            consistent snapshot, whatever other processes write meanwhile. `normcache load` reads \
            the lines back; a dump loaded into an empty cache gives identical records. The times \
            of fields are not part of the record notation: loaded fields take the time of the load.

            EXAMPLE
              normcache dump app.cache > app.jsonl
              normcache dump app.cache --prefix Pet: | normcache load other.cache
            """
    )

    @OptionGroup var file: CacheFile
    @Option(help: ArgumentHelp("Dump only the records whose key starts with this.", valueName: "prefix"))
    var prefix = ""

    func run() throws {
        let cache = try file.openForReading()
        defer { cache.close() }
        try cache.forEachRecord(withPrefix: prefix) { key, record in
            print("{\"key\":\(Output.quoted(key)),\"record\":\(String(decoding: record, as: UTF8.self))}")
        }
    }
}
