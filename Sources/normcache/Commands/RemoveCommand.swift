import ArgumentParser
import NormCache

/// `normcache rm`: deletes a record or a key group.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete a record, or every record whose key starts with a prefix.",
        discussion: """
            Prints how many records were deleted. An absent KEY exits with status 2; a prefix \
            that matches nothing deletes 0 records and exits with 0. A prefix is deleted in one \
            atomic write.

            EXAMPLE
              normcache rm app.cache Pet:7
              normcache rm app.cache --prefix Pet:
            """
    )

    @OptionGroup var file: CacheFile
    @OptionGroup var records: RecordSelection

    func run() throws {
        let cache = try file.openForWriting(creating: false)
        defer { cache.close() }
        if let key = records.key {
            guard try cache.remove(key) else { throw CommandFailure(.notFound, "no record '\(key)' in '\(file.cache)'") }
            print("removed 1 record")
        } else {
            let removed = try cache.removeAll(withPrefix: records.prefix ?? "")
            print("removed \(removed) record\(removed == 1 ? "" : "s")")
        }
    }
}
