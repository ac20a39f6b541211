import ArgumentParser
import NormCache

/// `normcache read`: an operation's data from a cache, or what is missing.
struct ReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read a GraphQL operation's data from a cache.",
        discussion: """
            Prints the data as indented JSON. A miss exits with status 2 and lists each missing \
            response path on standard error (with --partial, the data with the missing parts null \
            is printed too). --json prints one object whatever the outcome: {"status": \
            "complete"|"stale"|"miss", "data": ..., "missing": [...], "stale": [...]}, each entry \
            {"path": [...], "reason": ..., "record": ..., "field": ...}.

            EXAMPLE
              normcache read app.cache --schema schema.graphql --query '{ hero { name } }'
            """
    )

    @OptionGroup var file: CacheFile
    @OptionGroup var operation: OperationOptions
    @Flag(help: "On a miss, give the data with the missing parts null.")
    var partial = false
    @Option(help: ArgumentHelp("Return fields stale by at most this many seconds.", valueName: "seconds"))
    var maxStale: UInt64?
    @Flag(help: "Print the whole result as one JSON object.")
    var json = false

    func run() throws {
        let cache = try file.openForReading(operation.cacheOptions)
        defer { cache.close() }
        let result = try cache.read(try operation.prepare(on: cache), variables: operation.variables,
                                    options: ReadOptions(partial: partial, maxStale: maxStale))
        let data = result.data.map { String(decoding: $0, as: UTF8.self) }
        if json {
            let status = result.status == .complete ? "complete" : result.status == .stale ? "stale" : "miss"
            print("{\"status\":\"\(status)\",\"data\":\(data ?? "null"),\"missing\":\(Self.json(result.missing)),"
                  + "\"stale\":\(Self.json(result.stale))}")
        } else if let data {
            print((try? JSONText.parse(Array(data.utf8)).pretty()) ?? data)
        }
        guard result.status == .miss else { return }
        let paths = result.missing.map { report in
            "\(report.path.map(\.description).joined(separator: ".")) (\(report.reason.rawValue): \(report.record)"
                + "\(report.field.map { " " + $0 } ?? ""))"
        }
        throw CommandFailure(.notFound, "a miss: missing \(paths.joined(separator: ", "))")
    }

    private static func json(_ reports: [FieldReport]) -> String {
        let entries = reports.map { report in
            let path = report.path.map { segment -> String in
                if case .index(let index) = segment { return String(index) }
                return Output.quoted(segment.description)
            }
            return "{\"path\":[\(path.joined(separator: ","))],\"reason\":\"\(report.reason.rawValue)\","
                + "\"record\":\(Output.quoted(report.record)),\"field\":\(report.field.map(Output.quoted) ?? "null")}"
        }
        return "[\(entries.joined(separator: ","))]"
    }
}
