import ArgumentParser
import Glibc
import NormCache

/// `normcache export`: writes a cache's records as an Apollo cache.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every record of a cache as an Apollo cache.",
        discussion: """
            --to apollo-client writes the JSON that Apollo Client's cache.restore() takes \
            (ROOT_QUERY, {"__ref": ...}, hero({"episode":"JEDI"}), records keyed by their path \
            written inline); - or no file: standard output. --to apollo-ios writes the records \
            into the SQLite file Apollo iOS's SQLiteNormalizedCache reads, in its records table, \
            created when absent (a row of the same key is replaced). The records come from one \
            read transaction of a read-only handle: a consistent snapshot.

            EXAMPLE
              normcache export app.cache --to apollo-client > extract.json
              normcache export app.cache --to apollo-ios ApolloCache.sqlite
            """
    )

    @OptionGroup var file: CacheFile
    @Option(help: ArgumentHelp("The format to write: apollo-client or apollo-ios.", valueName: "format"))
    var to: FormatArgument
    @Argument(help: "The file to write; for apollo-client, - or nothing: standard output.")
    var output = "-"

    func run() throws {
        let cache = try file.openForReading()
        let exported: [UInt8]
        do {
            defer { cache.close() }
            exported = try cache.exportRecords(to.format)
        }
        switch to.format {
        case .apolloClient:
            try Self.write(exported + [UInt8(ascii: "\n")], to: output)
        case .apolloIOS:
            guard output != "-" else { throw CommandFailure(.usage, "--to apollo-ios needs the SQLite file to write") }
            guard case .object(let members) = try JSONText.parse(exported) else { return }
            let rows = members.map { (key: JSONText.decode($0.name), record: Self.text(of: $0.value)) }
            try ApolloIOSFile.write(rows, to: output)
            print("exported \(rows.count) record\(rows.count == 1 ? "" : "s")")
        }
    }

    /// The text of a string value.
    private static func text(of value: JSONValue) -> String {
        guard case .scalar(let literal) = value else { return "" }
        return JSONText.decode(literal)
    }

    /// Writes `bytes` to the file at `path`, or to standard output for `-`.
    private static func write(_ bytes: [UInt8], to path: String) throws(CommandFailure) {
        let descriptor = path == "-" ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure(.badInput, "cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDOUT_FILENO { close(descriptor) } }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw CommandFailure(.failure, "cannot write '\(path)': \(String(cString: strerror(errno)))") }
            written += count
        }
    }
}
