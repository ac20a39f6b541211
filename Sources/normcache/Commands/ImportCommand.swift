import ArgumentParser
import NormCache

/// `normcache import`: merges an Apollo cache into a cache.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Merge the records of an Apollo cache into a cache, creating it if needed.",
        discussion: """
            --from apollo-client reads the JSON of Apollo Client's cache.extract() (ROOT_QUERY, \
            {"__ref": ...}, field keys such as hero({"episode":"JEDI"})) and translates keys and \
            references to normcache's (QUERY_ROOT, {"$reference": ...}, hero(episode:JEDI)); an \
            object without an id, stored inline, becomes the record normcache keys by its path \
            (QUERY_ROOT.stats). --from apollo-ios reads Apollo iOS's SQLite cache file (its \
            records table) and puts each record as it is. The import is one atomic write: a \
            malformed file, a record that is not JSON, a reference to a record the file does not \
            hold fails with status 3, naming the record, and writes nothing. \
            docs/apollo-interchange.md says what cannot be carried over.

            EXAMPLE
              normcache import app.cache --from apollo-client extract.json
              normcache import app.cache --from apollo-ios ApolloCache.sqlite
            """
    )

    @OptionGroup var file: CacheFile
    @Option(help: ArgumentHelp("The format of the file: apollo-client or apollo-ios.", valueName: "format"))
    var from: FormatArgument
    @Argument(help: "The Apollo cache file; for apollo-client, - reads standard input.")
    var input: String

    func run() throws {
        let data: [UInt8]
        switch from.format {
        case .apolloClient: data = try InputFile.read(input, what: "Apollo Client cache")
        case .apolloIOS: data = try ApolloIOSFile.rows(of: input)
        }
        let cache = try file.openForWriting(creating: true)
        defer { cache.close() }
        let changed = try data.withUnsafeBytes { bytes in try cache.importRecords(from.format, from: bytes) }
        print("imported \(changed.count) field\(changed.count == 1 ? "" : "s") that changed")
    }
}
