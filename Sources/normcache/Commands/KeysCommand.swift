import ArgumentParser
import NormCache

/// `normcache keys`: the keys of a key group, a page at a time.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List the keys that start with a prefix, in byte order, a page at a time.",
        discussion: """
            Without --limit every key is listed. With it, when more keys follow, the key to pass \
            to --after for the next page is printed on standard error (with --json, as "next").

            EXAMPLE
              normcache keys app.cache Pet: --limit 100
              normcache keys app.cache Pet: --limit 100 --after Pet:99
            """
    )

    @OptionGroup var file: CacheFile
    @Argument(help: "List only the keys that start with this (default: every key).")
    var prefix = ""
    @Option(help: ArgumentHelp("List only the keys after this one.", valueName: "key"))
    var after: String?
    @Option(help: ArgumentHelp("List at most this many keys.", valueName: "n"))
    var limit: Int?
    @Flag(help: "Print {\"keys\": [...], \"next\": KEY or null}.")
    var json = false

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let cache = try file.openForReading()
        defer { cache.close() }
        var keys = try cache.keys(withPrefix: prefix, after: after, limit: limit.map { $0 + 1 } ?? 0)
        var next: String?
        if let limit, keys.count > limit {
            keys.removeLast()
            next = keys.last
        }
        if json {
            print("{\"keys\":[\(keys.map(Output.quoted).joined(separator: ","))],\"next\":\(next.map(Output.quoted) ?? "null")}")
            return
        }
        for key in keys { print(key) }
        if let next { Output.error("more keys follow: --after \(next)") }
    }
}
