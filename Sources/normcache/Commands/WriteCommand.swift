import ArgumentParser
import NormCache

/// `normcache write`: normalizes a GraphQL response into a cache.
struct WriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Normalize a GraphQL response and merge its records into a cache.",
        discussion: """
            The response, {"data": ..., "errors": ...}, comes from RESPONSE or standard input; the \
            cache file is created when it does not exist. Prints the changed fields, one \
            recordKey.fieldKey a line (with --json, as an array). Nothing is written when the \
            response does not fit the operation (status 3).

            EXAMPLE
              normcache write app.cache --schema schema.graphql --query-file hero.graphql response.json
            """
    )

    @OptionGroup var file: CacheFile
    @OptionGroup var operation: OperationOptions
    @Argument(help: "The response file; - or nothing: standard input.")
    var response = "-"
    @Option(help: ArgumentHelp("Seconds the written fields stay fresh.", valueName: "seconds"))
    var maxAge: UInt32?
    @Flag(help: "Print the changed fields as a JSON array.")
    var json = false

    func run() throws {
        let body = try InputFile.text(response, what: "response")
        let cache = try file.openForWriting(creating: true, operation.cacheOptions)
        defer { cache.close() }
        let prepared = try operation.prepare(on: cache)
        let changed = try cache.write(prepared, response: body, variables: operation.variables,
                                      options: WriteOptions(maxAge: maxAge)).changed
        if json {
            print("[\(changed.map(Output.quoted).joined(separator: ","))]")
        } else {
            for field in changed { print(field) }
        }
    }
}
