import TestSupport
import Testing
@testable import NormCache

/// The top level of a response: `data`, `errors` and `extensions` only, so that a
/// response passed without its envelope fails instead of writing nothing.
@Suite struct ResponseEnvelopeTests {
    /// An operation with an aliased root field and a plain one.
    static let feed = "query Feed { latest: feed(first: 2) { id title } me { id } }"

    @Test func dataWithoutItsEnvelopeSaysWhatWasMeant() throws {
        let test = try TestCache()
        let op = try test.cache.prepare(Self.feed)
        let bare = #"{"latest": [{"id": "1", "title": "A"}], "me": {"id": "7"}}"#
        let expected = NormCacheError(.data, #"the response has no 'data' envelope: its member 'latest' is a field of the operation; pass {"data": <this object>}"#)
        #expect(throws: expected) { try test.cache.write(op, bare) }
        #expect(throws: expected) { try test.cache.normalize(op, bare) }
        #expect(throws: NormCacheError(.data, #"the response has no 'data' envelope: its member 'me' is a field of the operation; pass {"data": <this object>}"#)) {
            try test.cache.write(op, #"{"me": {"id": "7"}, "errors": []}"#)
        }
        #expect(try test.cache.keys(withPrefix: "") == [])
        let changed = try test.cache.write(op, #"{"data": \#(bare)}"#)
        #expect(changed == ["QUERY_ROOT.feed(first:2).0.id", "QUERY_ROOT.feed(first:2).0.title", "QUERY_ROOT.me.id",
                             "QUERY_ROOT.feed(first:2)", "QUERY_ROOT.me"])
    }

    @Test func aStrayTopLevelMemberIsAnError() throws {
        let test = try TestCache()
        let op = try test.cache.prepare(Self.feed)
        let cases: [(String, String)] = [
            (#"{"data": {"latest": [], "me": null}, "result": 1}"#, "unexpected member 'result' at the top of the response: a GraphQL response holds only 'data', 'errors' and 'extensions'"),
            (#"{"feed": []}"#, "unexpected member 'feed' at the top of the response: a GraphQL response holds only 'data', 'errors' and 'extensions'"),
            (#"{"Data": {"latest": [], "me": null}}"#, "unexpected member 'Data' at the top of the response: a GraphQL response holds only 'data', 'errors' and 'extensions'"),
            (#"{"d\u0061ta": null, "\u00e9": 1}"#, "unexpected member '\u{e9}' at the top of the response: a GraphQL response holds only 'data', 'errors' and 'extensions'"),
            ("{}", "the response has neither 'data' nor 'errors': a GraphQL response holds one or both"),
            (#"{"extensions": {"cost": 3}}"#, "the response has neither 'data' nor 'errors': a GraphQL response holds one or both"),
        ]
        for (response, message) in cases {
            #expect(throws: NormCacheError(.data, message), "\(response)") { try test.cache.write(op, response) }
            #expect(throws: NormCacheError(.data, message), "\(response)") { try test.cache.normalize(op, response) }
        }
        #expect(try test.cache.keys(withPrefix: "") == [])
    }

    @Test func aResponseWithoutDataButWithErrorsWritesNothing() throws {
        let test = try TestCache()
        let op = try test.cache.prepare(Self.feed)
        #expect(try test.cache.normalize(op, #"{"errors": [{"message": "boom"}], "extensions": {"cost": 3}}"#) == "{}")
        #expect(try test.cache.normalize(op, #"{"data": null, "errors": [{"message": "boom"}]}"#) == "{}")
        #expect(try test.cache.normalize(op, #"{"data": null}"#) == "{}")
        #expect(try test.cache.write(op, #"{"data": null, "errors": [{"message": "boom"}]}"#) == [])
        #expect(try test.cache.normalize(op, #"{"extensions": {}, "data": {"latest": [], "me": null}, "errors": []}"#)
            == #"{"QUERY_ROOT":{"feed(first:2)":[],"me":null}}"#)
    }
}
