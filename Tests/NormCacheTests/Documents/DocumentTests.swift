import TestSupport
import Testing
@testable import NormCache

/// Plain JSON documents: stored as written under a key of the caller's, got back whole
/// with their freshness, listed, removed and invalidated like records; the REST flow of
/// `executeDocument` ("from the cache while younger than 30 minutes, else the API").
@Suite struct DocumentTests {
    static let start: UInt64 = 1_700_000_000
    static let page = #"{"articles": [{"id": 7, "title": "Caching", "score": 1.50}], "next": null}"#

    func setUp() throws -> (TestCache, Counter) {
        let now = Counter(start: Self.start)
        return (try TestCache(clock: { now.value }), now)
    }

    @Test func aDocumentComesBackAsWritten() throws {
        let (test, _) = try setUp()
        #expect(try test.cache.putDocument("GET /articles?page=1", json: Self.page))
        #expect(try test.cache.document("GET /articles?page=1") == ReadResult(status: .complete, data: Array(Self.page.utf8)))
        #expect(try test.cache.putDocument("GET /count", json: " 42 "))
        #expect(try test.cache.document("GET /count").data == Array(" 42 ".utf8))
        #expect(try test.cache.keys(withPrefix: "GET /") == ["GET /articles?page=1", "GET /count"])
    }

    @Test func aDocumentExpiresAfterItsLifetime() throws {
        let (test, now) = try setUp()
        #expect(try test.cache.putDocument("GET /articles", json: Self.page, options: WriteOptions(cacheControl: "max-age=1800", age: "60")))
        now.value = Self.start + 1739
        let fresh = try test.cache.document("GET /articles", options: ReadOptions(reportingFreshness: true))
        #expect(fresh.status == .complete && fresh.oldestWrittenAt == Self.start && fresh.earliestExpiry == Self.start + 1740)
        now.value = Self.start + 1740
        #expect(try test.cache.document("GET /articles") == ReadResult(status: .miss, data: nil, missing: [
            FieldReport(path: [], reason: .stale, record: "GET /articles", field: nil, writtenAt: Self.start, expiredAt: Self.start + 1740),
        ]))
        let stale = try test.cache.document("GET /articles", options: ReadOptions(maxStale: 60))
        #expect(stale.status == .stale && stale.data == Array(Self.page.utf8) && stale.stale.map(\.reason) == [.stale])
    }

    @Test func noStoreAndBadJSONWriteNothing() throws {
        let (test, _) = try setUp()
        #expect(try !test.cache.putDocument("GET /me", json: Self.page, options: WriteOptions(cacheControl: "private, no-store")))
        #expect(throws: NormCacheError.self) { try test.cache.putDocument("GET /me", json: "{\"a\": ") }
        #expect(throws: NormCacheError(.invalidArgument, "empty document key")) { try test.cache.putDocument("", json: "1") }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
        #expect(try test.cache.document("GET /me").missing == [FieldReport(path: [], reason: .absent, record: "GET /me", field: nil)])
    }

    @Test func aRecordOfFieldsIsNotADocument() throws {
        let (test, _) = try setUp()
        _ = try test.cache.put(json: #"{"Article:7": {"title": "Caching"}}"#)
        #expect(throws: NormCacheError(.invalidArgument, "'Article:7' is a record of fields, not a document")) { try test.cache.document("Article:7") }
        #expect(throws: NormCacheError(.invalidArgument, "'Article:7' is a record of fields, not a document")) {
            try test.cache.putDocument("Article:7", json: "1")
        }
        #expect(try test.cache.record("Article:7") == #"{"title":"Caching"}"#)
    }

    @Test func documentsAreInvalidatedAndRemovedByPrefix() throws {
        let (test, _) = try setUp()
        try test.cache.putDocument("GET /articles?page=1", json: Self.page)
        try test.cache.putDocument("GET /articles?page=2", json: "[]")
        #expect(try test.cache.invalidateAll(withPrefix: "GET /articles") == 2)
        #expect(try test.cache.document("GET /articles?page=2").missing.map(\.reason) == [.invalidated])
        try test.cache.putDocument("GET /articles?page=2", json: "[]")
        #expect(try test.cache.document("GET /articles?page=2").status == .complete)
        #expect(try test.cache.removeAll(withPrefix: "GET /articles") == 2)
    }

    @Test func theRestFlowServesTheCacheFor30MinutesThenTheAPI() throws {
        let (test, now) = try setUp()
        var asked: [String?] = []
        let fetch = { (request: FetchRequest) throws(NormCacheError) -> FetchReply in
            asked.append(request.key)
            return FetchReply(body: Array(Self.page.utf8), headers: WriteOptions(maxAge: 1800))
        }
        #expect(try test.cache.executeDocument("GET /articles", fetch: fetch).source == .network)
        now.value = Self.start + 1799
        let cached = try test.cache.executeDocument("GET /articles", fetch: fetch)
        #expect(cached.source == .cache && cached.read.data == Array(Self.page.utf8) && cached.read.earliestExpiry == Self.start + 1800)
        now.value = Self.start + 1800
        #expect(try test.cache.executeDocument("GET /articles", fetch: fetch).source == .network)
        #expect(asked == ["GET /articles", "GET /articles"])
        // A body that is not JSON: an error, and the stored document stays.
        #expect(throws: NormCacheError.self) {
            try test.cache.executeDocument("GET /articles", options: ExecuteOptions(policy: .networkOnly)) { (_) throws(NormCacheError) in
                FetchReply(body: Array("<html>".utf8))
            }
        }
        #expect(try test.cache.document("GET /articles").data == Array(Self.page.utf8))
    }
}
