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
    @Argument(help: "The key of the record to delete.")
    var key: String?
    @Option(help: ArgumentHelp("Delete every record whose key starts with this instead.", valueName: "prefix"))
    var prefix: String?

    func validate() throws {
        guard (key == nil) != (prefix == nil) else { throw ValidationError("give either a KEY or --prefix, not both or neither") }
    }

    func run() throws {
        let cache = try file.openForWriting(creating: false)
        defer { cache.close() }
        if let prefix {
            let removed = try cache.removeAll(withPrefix: prefix)
            print("removed \(removed) record\(removed == 1 ? "" : "s")")
        } else if let key {
            guard try cache.remove(key) else { throw CommandFailure(.notFound, "no record '\(key)' in '\(file.cache)'") }
            print("removed 1 record")
        }
    }
}
