import ArgumentParser
import NormCache

/// `normcache rules`: saves the schema and key rules in a cache file, or clears them.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Save the schema and key rules in a cache file, or clear them.",
        discussion: """
            Rules saved in a cache file key the records of every process, language and command \
            that opens it without rules of its own: prepare, normalize, write and read then need \
            no --schema or --config. stats shows the fingerprint of the saved rules.

            EXAMPLE
              normcache rules save app.cache --schema schema.graphql --config rules.json
              normcache rules clear app.cache
            """,
        subcommands: [Save.self, Clear.self]
    )

    /// `normcache rules save`.
    struct Save: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a schema and configurations as the cache file's rules, replacing any saved before.",
            discussion: """
                The configurations apply in the order given, after the schema. Prints the \
                fingerprint of the saved rules. The cache file is created when it does not exist; \
                rules saved before are replaced even when they are damaged.

                EXAMPLE
                  normcache rules save app.cache --schema schema.graphql --config rules.json
                """
        )

        @OptionGroup var file: CacheFile
        @Option(help: ArgumentHelp("The schema (SDL, with @typePolicy and @fieldPolicy directives).", valueName: "file"))
        var schema: String?
        @Option(help: ArgumentHelp("Key rules and max-age rules as JSON (normcache_configure's); may be given more than once.", valueName: "file"))
        var config: [String] = []

        func validate() throws {
            guard schema != nil || !config.isEmpty else { throw ValidationError("give --schema, --config or both") }
        }

        func run() throws {
            let cache = try file.openForWriting(creating: true, rules: .own)
            defer { cache.close() }
            if let schema { try cache.loadSchema(try InputFile.text(schema, what: "schema")) }
            for configuration in config { try cache.configure(try InputFile.text(configuration, what: "configuration")) }
            print(try cache.saveRules())
        }
    }

    /// `normcache rules clear`.
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove the rules saved in a cache file.",
            discussion: """
                Works on saved rules that are damaged too. A file without saved rules exits with \
                status 2.

                EXAMPLE
                  normcache rules clear app.cache
                """
        )

        @OptionGroup var file: CacheFile

        func run() throws {
            let cache = try file.openForWriting(creating: false, rules: .own)
            defer { cache.close() }
            guard try cache.clearSavedRules() else { throw CommandFailure(.notFound, "'\(file.cache)' has no saved rules") }
            print("cleared the saved rules")
        }
    }
}
