import ArgumentParser
import NormCache

/// The options that say which GraphQL operation a command works with: the document,
/// the schema and key rules it is prepared with, and its variables.
struct OperationOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The schema (SDL, with @typePolicy and @fieldPolicy directives).", valueName: "file"))
    var schema: String?
    @Option(help: ArgumentHelp("The key rules and max-age rules as JSON (the configuration of normcache_configure).", valueName: "file"))
    var config: String?
    @Option(help: ArgumentHelp("The GraphQL document.", valueName: "text"))
    var query: String?
    @Option(help: ArgumentHelp("The file of the GraphQL document.", valueName: "file"))
    var queryFile: String?
    @Option(help: ArgumentHelp("The operation to use, in a document of several.", valueName: "name"))
    var operationName: String?
    @Option(help: ArgumentHelp("The longest document taken, in bytes (default 4194304).", valueName: "n"))
    var maxDocumentBytes: Int?
    @Option(help: ArgumentHelp("The most tokens of a document taken (default 500000).", valueName: "n"))
    var maxDocumentTokens: Int?
    @Option(help: ArgumentHelp("The variables as a JSON object.", valueName: "json"))
    var variables = ""

    func validate() throws {
        guard (query == nil) != (queryFile == nil) else { throw ValidationError("give either --query or --query-file") }
        for (name, value) in [("--max-document-bytes", maxDocumentBytes), ("--max-document-tokens", maxDocumentTokens)] {
            if let value, value < 1 { throw ValidationError("\(name) must be at least 1") }
        }
    }

    /// The cache options of the document limits given (the defaults for the others).
    var cacheOptions: CacheOptions {
        var options = CacheOptions()
        if let maxDocumentBytes { options.maxDocumentBytes = maxDocumentBytes }
        if let maxDocumentTokens { options.maxDocumentTokens = maxDocumentTokens }
        return options
    }

    /// Loads the schema and configuration into `cache` and prepares the operation.
    func prepare(on cache: NormalizedCache) throws -> PreparedOperation {
        if let schema { try cache.loadSchema(try InputFile.text(schema, what: "schema")) }
        if let config { try cache.configure(try InputFile.text(config, what: "configuration")) }
        let document = try query ?? InputFile.text(queryFile ?? "-", what: "query")
        return try cache.prepare(document, operationName: operationName)
    }
}
