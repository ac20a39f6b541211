import ArgumentParser
import NormCache

/// `normcache invalidate`: marks records or fields stale without deleting them.
struct InvalidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invalidate",
        abstract: "Mark a record, one of its fields, or a key group stale.",
        discussion: """
            The data stays; reads treat it as stale until it is written again (a miss with the \
            reason "invalidated", or stale data for a read that allows it). Prints how many fields \
            were marked. An absent KEY or field exits with status 2; a prefix that matches nothing \
            marks 0 fields and exits with 0.

            EXAMPLE
              normcache invalidate app.cache QUERY_ROOT --field "feed(first:10)"
              normcache invalidate app.cache --prefix Article:
            """
    )

    @OptionGroup var file: CacheFile
    @OptionGroup var records: RecordSelection
    @Option(help: ArgumentHelp("Invalidate only this field of KEY (its storage key, as get prints it).", valueName: "field"))
    var field: String?

    func validate() throws {
        if field != nil && records.key == nil { throw ValidationError("--field goes with a KEY, not with --prefix") }
    }

    func run() throws {
        let cache = try file.openForWriting(creating: false)
        defer { cache.close() }
        let marked: Int
        if let key = records.key {
            marked = try cache.invalidate(key, field: field)
            if marked == 0 {
                let what = field.map { "no field '\($0)' in the record '\(key)'" } ?? "no record '\(key)'"
                throw CommandFailure(.notFound, "\(what) in '\(file.cache)'")
            }
        } else {
            marked = try cache.invalidateAll(withPrefix: records.prefix ?? "")
        }
        print("invalidated \(marked) field\(marked == 1 ? "" : "s")")
    }
}
