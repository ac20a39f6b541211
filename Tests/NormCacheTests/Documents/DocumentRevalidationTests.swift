import TestSupport
import Testing
@testable import NormCache

/// Revalidation of plain JSON documents: the entity-tag a document is stored with
/// (`WriteOptions.etag`) comes back with it, and `refreshDocument` renews its freshness
/// after a 304 without rewriting it, entity fields of its own write included.
@Suite struct DocumentRevalidationTests {
    static let start: UInt64 = 1_700_000_000
    static let page = #"{"articles": [7]}"#

    func setUp() throws -> (TestCache, Counter) {
        let now = Counter(start: Self.start)
        return (try TestCache(clock: { now.value }), now)
    }

    @Test func theEntityTagIsKeptAndReadBack() throws {
        let (test, _) = try setUp()
        #expect(try test.cache.putDocument("GET /a", json: Self.page, options: WriteOptions(maxAge: 60, etag: #"W/"v1""#)))
        #expect(try test.cache.record("GET /a") == #"{"$document":"{\"articles\": [7]}","$etag":"W/\"v1\""}"#)
        #expect(try test.cache.document("GET /a") == ReadResult(status: .complete, data: Array(Self.page.utf8), etag: #"W/"v1""#))
        // Written again without one, the document has none.
        try test.cache.putDocument("GET /a", json: "1")
        #expect(try test.cache.document("GET /a").etag == nil)
        #expect(try test.cache.record("GET /a") == #"{"$document":"1"}"#)
    }

    @Test func aMalformedEntityTagWritesNothing() throws {
        let (test, _) = try setUp()
        let cases: [(String, String)] = [
            ("v1", #"malformed ETag 'v1': expected '"' at byte 0 (an entity-tag is "v1" or W/"v1")"#),
            (#"W/v1"#, #"malformed ETag 'W/v1': expected '"' at byte 2 (an entity-tag is "v1" or W/"v1")"#),
            (#""v1"#, #"malformed ETag '"v1': no closing '"'"#),
            (#""v1" x"#, #"malformed ETag '"v1" x': unexpected bytes after the closing '"', at byte 4"#),
            ("\"v\r\n1\"", #"malformed ETag '"v\x0d\x0a1"': byte 2 (0xd) may not be in an entity-tag"#),
            ("", #"malformed ETag '': expected '"' at byte 0 (an entity-tag is "v1" or W/"v1")"#),
            ("\"" + String(repeating: "a", count: 1023) + "\"", "the ETag of 1025 bytes is longer than the 1024 accepted"),
        ]
        for (tag, message) in cases {
            #expect(throws: NormCacheError(.invalidArgument, message)) {
                try test.cache.putDocument("GET /a", json: Self.page, options: WriteOptions(etag: tag))
            }
        }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
        // The longest accepted, and every visible byte but '"'.
        try test.cache.putDocument("GET /a", json: "1", options: WriteOptions(etag: "\"" + String(repeating: "a", count: 1022) + "\""))
        try test.cache.putDocument("GET /b", json: "1", options: WriteOptions(etag: #""!#$%&'()*+,-./09:;<=>?@AZ[\]^_`az{|}~é""#))
        #expect(try test.cache.document("GET /b").etag == #""!#$%&'()*+,-./09:;<=>?@AZ[\]^_`az{|}~é""#)
    }

    @Test func aRefreshRenewsFreshnessWithoutRewriting() throws {
        let (test, now) = try setUp()
        #expect(try test.cache.refreshDocument("GET /a", options: WriteOptions(maxAge: 60)) == .absent)
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
        try test.cache.putDocument("GET /a", json: Self.page, options: WriteOptions(cacheControl: "max-age=60", etag: #""v1""#))
        now.value = Self.start + 100
        #expect(try test.cache.document("GET /a").missing.map(\.reason) == [.stale])
        #expect(try test.cache.refreshDocument("GET /a", options: WriteOptions(cacheControl: "max-age=60", age: "10")) == .refreshed)
        let read = try test.cache.document("GET /a", options: ReadOptions(reportingFreshness: true))
        #expect(read == ReadResult(status: .complete, data: Array(Self.page.utf8), oldestWrittenAt: Self.start + 100,
                                   earliestExpiry: Self.start + 150, etag: #""v1""#))
        // A 304 that sends an ETag again replaces the stored one.
        #expect(try test.cache.refreshDocument("GET /a", options: WriteOptions(etag: #""v2""#)) == .refreshed)
        #expect(try test.cache.document("GET /a", options: ReadOptions(reportingFreshness: true)).earliestExpiry == nil)
        #expect(try test.cache.record("GET /a") == #"{"$document":"{\"articles\": [7]}","$etag":"\"v2\""}"#)
    }

    @Test func aRefreshLiftsAnInvalidationAndHonoursNoStore() throws {
        let (test, now) = try setUp()
        try test.cache.putDocument("GET /a", json: Self.page, options: WriteOptions(maxAge: 60))
        #expect(try test.cache.invalidate("GET /a") == 1)
        #expect(try test.cache.refreshDocument("GET /a", options: WriteOptions(cacheControl: "no-store")) == .notStored)
        #expect(try test.cache.document("GET /a").missing.map(\.reason) == [.invalidated])
        now.value = Self.start + 5
        #expect(try test.cache.refreshDocument("GET /a", options: WriteOptions(maxAge: 60)) == .refreshed)
        #expect(try test.cache.document("GET /a", options: ReadOptions(reportingFreshness: true)).earliestExpiry == Self.start + 65)
    }

    @Test func aRefreshRefusesBadInput() throws {
        let (test, _) = try setUp()
        _ = try test.cache.put(json: #"{"Article:7": {"title": "Caching"}}"#)
        #expect(throws: NormCacheError(.invalidArgument, "'Article:7' is a record of fields, not a document")) {
            try test.cache.refreshDocument("Article:7", options: WriteOptions(maxAge: 1))
        }
        try test.cache.putDocument("GET /a", json: Self.page, options: WriteOptions(maxAge: 60, etag: #""v1""#))
        #expect(throws: NormCacheError(.invalidArgument, #"malformed ETag 'v2': expected '"' at byte 0 (an entity-tag is "v1" or W/"v1")"#)) {
            try test.cache.refreshDocument("GET /a", options: WriteOptions(etag: "v2"))
        }
        #expect(throws: NormCacheError.self) { try test.cache.refreshDocument("GET /a", options: WriteOptions(cacheControl: "max-age=x")) }
        #expect(throws: NormCacheError(.invalidArgument, "empty document key")) { try test.cache.refreshDocument("", options: WriteOptions()) }
        let read = try test.cache.document("GET /a", options: ReadOptions(reportingFreshness: true))
        #expect(read.earliestExpiry == Self.start + 60 && read.etag == #""v1""#)
    }

    @Test func aRefreshRestampsTheEntityFieldsOfItsOwnWrite() throws {
        let (test, now) = try setUp()
        try test.cache.configure(#"""
            {"documents": {"prefixes": {"GET /articles": "Page"},
                           "types": {"Page": {"members": {"articles": "Article"}},
                                     "Article": {"keyFields": ["id"], "members": {"author": "User"}},
                                     "User": {"keyFields": ["id"]}}}}
            """#)
        let page = #"{"articles": [{"id": 7, "title": "Caching", "author": {"id": 1, "name": "Ann"}}]}"#
        try test.cache.putDocument("GET /articles", json: page, options: WriteOptions(maxAge: 30, etag: #""p1""#))
        now.value = Self.start + 10
        // Written since by something else: keeps its own time (and no expiry).
        _ = try test.cache.put(json: #"{"Article:7": {"title": "Caching, revised"}}"#)
        now.value = Self.start + 100
        #expect(try test.cache.document("GET /articles").status == .miss)
        #expect(try test.cache.refreshDocument("GET /articles", options: WriteOptions(cacheControl: "max-age=60")) == .refreshed)
        let read = try test.cache.document("GET /articles", options: ReadOptions(reportingFreshness: true))
        // Every field is fresh, the nested User's too; the oldest is the title written at +10.
        #expect(read == ReadResult(status: .complete,
                                   data: Array(#"{"articles":[{"id":7,"title":"Caching, revised","author":{"id":1,"name":"Ann"}}]}"#.utf8),
                                   oldestWrittenAt: Self.start + 10, earliestExpiry: Self.start + 160, etag: #""p1""#))
        #expect(try test.cache.record("GET /articles")?.hasPrefix(#"{"$document":{"articles":[{"$reference":"Article:7"}]},"$etag":"\"p1\"","$shape":"#) == true)
    }

    @Test func aFetchReplysEntityTagIsStoredAndReturned() throws {
        let (test, _) = try setUp()
        let fetch = { (request: FetchRequest) throws(NormCacheError) -> FetchReply in
            FetchReply(body: Array(Self.page.utf8), headers: WriteOptions(cacheControl: "max-age=60", etag: #""n1""#))
        }
        #expect(try test.cache.executeDocument("GET /a", fetch: fetch).read.etag == #""n1""#)
        #expect(try test.cache.executeDocument("GET /a", fetch: fetch).read.etag == #""n1""#)
        #expect(try test.cache.document("GET /a").etag == #""n1""#)
    }
}
