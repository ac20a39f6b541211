import TestSupport
import Testing

@testable import NormCache

/// The largest document `prepare` takes (`CacheOptions.maxDocumentBytes` and
/// `maxDocumentTokens`): refused with an error naming the limit, the figure and the
/// option, at the limit plus one and not at the limit.
@Suite struct DocumentLimitsTests {
    /// A cache whose documents are limited to `bytes` and `tokens`.
    func cache(bytes: Int = 4 << 20, tokens: Int = 500_000) throws -> TestCache {
        var options = CacheOptions()
        options.maxDocumentBytes = bytes
        options.maxDocumentTokens = tokens
        return try TestCache(options: options)
    }

    @Test func aDocumentOfMoreBytesThanTheLimitIsRefused() throws {
        // 22 bytes.
        let document = "{ hero { name id } }\n\n"
        #expect(try cache(bytes: 22).cache.prepare(document).name == nil)
        #expect(throws: NormCacheError(.document, "the document is 22 bytes long, more than the limit of 21 (option max_document_bytes)")) {
            try cache(bytes: 21).cache.prepare(document)
        }
    }

    @Test func theByteLimitIsCheckedBeforeTheDocumentIsRead() throws {
        // Not UTF-8, and too deep: the length is what is reported.
        let document = [UInt8](repeating: UInt8(ascii: "{"), count: 1000) + [0xFF]
        let limited = try cache(bytes: 1000)
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: document.count, alignment: 1)
        defer { bytes.deallocate() }
        bytes.copyBytes(from: document)
        #expect(throws: NormCacheError(.document, "the document is 1001 bytes long, more than the limit of 1000 (option max_document_bytes)")) {
            try limited.cache.prepare(document: UnsafeRawBufferPointer(bytes))
        }
    }

    @Test func aDocumentOfMoreTokensThanTheLimitIsRefusedAtTheFirstTokenPastIt() throws {
        // `{`, `hero`, `{`, `name`, `id`, `}`, `}`: 7 tokens; commas and comments are not tokens.
        let document = "{ hero { name, id } } # a comment\n"
        #expect(try cache(tokens: 7).cache.prepare(document).name == nil)
        #expect(
            throws: NormCacheError(
                .document, "GraphQL error at line 1, column 21: the document has more than 6 tokens, the limit (option max_document_tokens)")
        ) {
            try cache(tokens: 6).cache.prepare(document)
        }
        // The limit comes before the syntax error after it.
        #expect(
            throws: NormCacheError(
                .document, "GraphQL error at line 1, column 3: the document has more than 1 tokens, the limit (option max_document_tokens)")
        ) {
            try cache(tokens: 1).cache.prepare("{ } }")
        }
    }

    @Test func theLimitsAreOptionsOfTheJSONOfOpen() throws {
        let options = try StoreTests.options(#"{"max_document_bytes": 100, "max_document_tokens": 5}"#)
        let test = try TestCache(options: options)
        #expect(
            throws: NormCacheError(
                .document, "GraphQL error at line 1, column 15: the document has more than 5 tokens, the limit (option max_document_tokens)")
        ) {
            try test.cache.prepare("{ hero { id } }")
        }
    }
}
