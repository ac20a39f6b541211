/// The largest GraphQL document `prepare` takes, in bytes and in tokens (as
/// graphql-java's parser options bound characters and tokens): a document past either
/// is refused with a `.document` error that names the limit, the figure and the option,
/// before anything is built from it — the byte count before the document is read, the
/// token count as the lexer reaches the first token past it.
struct DocumentLimits: Sendable {
    /// The most bytes (`CacheOptions.maxDocumentBytes`, option `max_document_bytes`).
    var bytes: Int
    /// The most tokens (`CacheOptions.maxDocumentTokens`, option `max_document_tokens`).
    var tokens: Int

    /// The limits of a handle opened with `options`.
    init(_ options: CacheOptions) {
        bytes = options.maxDocumentBytes
        tokens = options.maxDocumentTokens
    }

    /// Throws when `source` is longer than `bytes`:
    /// `the document is 5000000 bytes long, more than the limit of 4194304 (option max_document_bytes)`.
    func checkBytes(_ source: [UInt8]) throws(NormCacheError) {
        guard source.count <= bytes else {
            throw NormCacheError(.document, "the document is \(source.count) bytes long, more than the limit of \(bytes) (option max_document_bytes)")
        }
    }

    /// The message of the error at the first token past `tokens`, after the line and
    /// column: `the document has more than 500000 tokens, the limit (option max_document_tokens)`.
    var tokensMessage: String {
        "the document has more than \(tokens) tokens, the limit (option max_document_tokens)"
    }
}
