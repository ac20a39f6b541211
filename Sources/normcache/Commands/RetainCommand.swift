import ArgumentParser
import NormCache

/// `normcache retain`: makes a record key a root of `normcache gc`.
struct RetainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retain",
        abstract: "Retain a record key: normcache gc keeps it and what it refers to until it is released.",
        discussion: """
            Prints the new count. The count is kept in the cache file, shared by every process.

            EXAMPLE
              normcache retain app.cache Draft:1
            """
    )

    @OptionGroup var retained: RetainedKey

    func run() throws {
        try retained.change { cache, key in try cache.retain(key) }
    }
}

/// `normcache release`: the other half of `normcache retain`.
struct ReleaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Release a retained record key once.",
        discussion: """
            Prints the count left (0: no longer a root). A key not retained is an error (status 3, \
            an invalid argument).

            EXAMPLE
              normcache release app.cache Draft:1
            """
    )

    @OptionGroup var retained: RetainedKey

    func run() throws {
        try retained.change { cache, key in try cache.release(key) }
    }
}

/// The arguments of `retain` and `release`: the cache file and the key.
struct RetainedKey: ParsableArguments {
    @OptionGroup var file: CacheFile
    @Argument(help: "The record key.")
    var key: String

    /// Opens the cache, changes the key's count with `change`, and prints the new count.
    func change(_ change: (NormalizedCache, String) throws -> UInt32) throws {
        let cache = try file.openForWriting(creating: false)
        defer { cache.close() }
        print(try change(cache, key))
    }
}
