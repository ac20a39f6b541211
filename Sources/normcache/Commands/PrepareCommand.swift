import ArgumentParser
import NormCache

/// `normcache prepare`: the document to send for an operation.
struct PrepareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prepare",
        abstract: "Check a GraphQL operation and print the document to send to the server.",
        discussion: """
            The document is parsed, validated (against the schema, when one is given) and \
            completed with __typename and the key fields the rules need. No cache file is used.

            EXAMPLE
              normcache prepare --schema schema.graphql --query '{ hero { name } }'
            """
    )

    @OptionGroup var operation: OperationOptions

    func run() throws {
        let document = try ScratchCache.with(options: operation.cacheOptions) { cache in try operation.prepare(on: cache).document }
        print(document)
    }
}
