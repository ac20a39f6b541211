import ArgumentParser
import NormCache

/// `normcache get`: one record as JSON, its references followed on request.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print a record as indented JSON.",
        discussion: """
            References print as {"$reference": "User:1"}. With --follow N, each reference N levels \
            deep or less also carries the record it names: {"$reference": "User:1", "$record": {...}} \
            (a reference to an absent record stays as it is). An absent record exits with status 2.

            EXAMPLE
              normcache get app.cache Pet:7 --follow 1
            """
    )

    @OptionGroup var file: CacheFile
    @Argument(help: "The record's key.")
    var key: String
    @Option(help: ArgumentHelp("Expand references this many levels deep.", valueName: "n"))
    var follow = 0
    @Flag(help: "Print compact JSON on one line.")
    var json = false

    func validate() throws {
        if follow < 0 { throw ValidationError("--follow must be 0 or more") }
    }

    func run() throws {
        let cache = try file.openForReading()
        defer { cache.close() }
        guard let record = try cache.record(key) else { throw CommandFailure(.notFound, "no record '\(key)' in '\(file.cache)'") }
        var value = try Self.parse(record, key: key)
        if follow > 0 { value = try expand(value, levels: follow, cache) }
        print(json ? value.compact : value.pretty())
    }

    private static func parse(_ record: String, key: String) throws -> JSONValue {
        do {
            return try JSONText.parse(Array(record.utf8))
        } catch {
            throw CommandFailure(.failure, "the record '\(key)' came back as JSON this command cannot read: \(error.message)")
        }
    }

    /// `value` with every reference at most `levels` deep carrying its record.
    private func expand(_ value: JSONValue, levels: Int, _ cache: NormalizedCache) throws -> JSONValue {
        guard levels > 0 else { return value }
        if let target = value.reference {
            guard let record = try cache.record(target) else { return value }
            let expanded = try expand(try Self.parse(record, key: target), levels: levels - 1, cache)
            guard case .object(var members) = value else { return value }
            members.append(JSONValue.Member(name: "\"$record\"", value: expanded))
            return .object(members)
        }
        switch value {
        case .scalar: return value
        case .array(let elements): return .array(try elements.map { try expand($0, levels: levels, cache) })
        case .object(let members):
            return .object(try members.map { JSONValue.Member(name: $0.name, value: try expand($0.value, levels: levels, cache)) })
        }
    }
}
