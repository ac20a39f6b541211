import ArgumentParser
import NormCache

/// `normcache normalize`: the records a response splits into, without a cache.
struct NormalizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "normalize",
        abstract: "Print the records a GraphQL response splits into, in the record notation.",
        discussion: """
            The response is the whole of it, {"data": ..., "errors": ...}, read from RESPONSE or \
            standard input. No cache file is used; write stores the same records.

            EXAMPLE
              normcache normalize --schema schema.graphql --query '{ hero { id name } }' response.json
            """
    )

    @OptionGroup var operation: OperationOptions
    @Argument(help: "The response file; - or nothing: standard input.")
    var response = "-"
    @Flag(help: "Print compact JSON on one line.")
    var json = false

    func run() throws {
        let body = try InputFile.text(response, what: "response")
        let records = try ScratchCache.with(options: operation.cacheOptions) { cache in
            try NormalizedCache.normalize(try operation.prepare(on: cache), response: body, variables: operation.variables)
        }
        if json {
            print(records)
            return
        }
        print((try? JSONText.parse(Array(records.utf8)).pretty()) ?? records)
    }
}
