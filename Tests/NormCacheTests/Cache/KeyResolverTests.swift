import TestSupport
import Testing
@testable import NormCache

/// The programmatic key rule: first in the resolution order, with a view of the object.
@Suite struct KeyResolverTests {
    @Test func theResolverComesFirstAndMayDecline() throws {
        let test = try TestCache()
        try test.cache.configure(#"{"typePolicies": {"Dog": {"keyFields": ["id"]}, "Cat": {"keyFields": ["id"]}}}"#)
        test.cache.setKeyResolver { typename, object in
            switch typename {
            case "Dog": return object["license"].map { CacheKeyInfo(id: $0, group: "Licensed") }
            case "Bird": return CacheKeyInfo(id: object["name"] ?? "?")
            default: return nil
            }
        }
        let op = try test.cache.prepare("{ dog { id license } cat { id } bird { name } }")
        let records = try test.cache.normalize(op, #"{"data": {"dog": {"__typename": "Dog", "id": "1", "license": {"no": 5}}, "cat": {"__typename": "Cat", "id": "2"}, "bird": {"__typename": "Bird", "name": "Tweety"}}}"#)
        #expect(records == #"{"Licensed:{\"no\": 5}":{"id":"1","license":{"no":5},"__typename":"Dog"},"Cat:2":{"id":"2","__typename":"Cat"},"Bird:\"Tweety\"":{"name":"Tweety","__typename":"Bird"},"QUERY_ROOT":{"dog":{"$reference":"Licensed:{\"no\": 5}"},"cat":{"$reference":"Cat:2"},"bird":{"$reference":"Bird:\"Tweety\""}}}"#)
    }

    @Test func aFailingResolverFailsTheWriteAndWritesNothing() throws {
        struct Refused: Error, CustomStringConvertible {
            var description: String { "refused by policy" }
        }
        let test = try TestCache()
        test.cache.setKeyResolver { typename, _ in
            if typename == nil { throw NormCacheError(.invalidArgument, "no typename") }
            throw Refused()
        }
        let op = try test.cache.prepare("{ a { b } }")
        #expect(throws: NormCacheError(.callback, "the key resolver failed at a: no typename")) {
            try test.cache.write(op, #"{"data": {"a": {"b": 1}}}"#)
        }
        #expect(throws: NormCacheError(.callback, "the key resolver failed at a: refused by policy")) {
            try test.cache.write(op, #"{"data": {"a": {"__typename": "A", "b": 1}}}"#)
        }
        #expect(try test.cache.keys(withPrefix: "") == [])
        test.cache.setKeyResolver(nil)
        let again = try test.cache.prepare("{ a { b } }")
        #expect(try test.cache.write(again, #"{"data": {"a": {"b": 1}}}"#) == ["QUERY_ROOT.a.b", "QUERY_ROOT.a"])
    }

    @Test func theMembersAreListedInResponseOrderAsJSONText() throws {
        let seen = try listings(of: "{ a { id b { c } } }", #"{"data": {"a": {"__typename":"A","id":7,"b":{"c":1},"e\u00e9":"x"}}}"#)
        // The outer object first: its key is the path of the objects inside it.
        #expect(seen == [Listing(count: 4, members: [#""__typename" "A""#, #""id" 7"#, #""b" {"c":1}"#, #""e\u00e9" "x""#],
                                 names: ["__typename", "id", "b", "e\u{E9}"], id: "7"),
                         Listing(count: 1, members: [#""c" 1"#], names: ["c"], id: nil)])
    }

    @Test func aRepeatedNameIsListedAtEachPlaceAndFoundFirstByName() throws {
        let seen = try listings(of: "{ a { id } }", #"{"data": {"a": {"id": 1, "id": 2}}}"#)
        #expect(seen == [Listing(count: 2, members: [#""id" 1"#, #""id" 2"#], names: ["id", "id"], id: "1")])
    }

    @Test func anEmptyObjectHasNoMembers() throws {
        let seen = try listings(of: "{ a { ... on B { b } } }", #"{"data": {"a": {}}}"#)
        #expect(seen == [Listing(count: 0, members: [], names: [], id: nil)])
    }

    /// What a resolver that declines every object sees of each, in call order, when
    /// `response` to `document` is normalized.
    private func listings(of document: String, _ response: String) throws -> [Listing] {
        let test = try TestCache()
        let seen = Listings()
        test.cache.setKeyResolver { _, object in
            seen.values.append(Listing(of: object))
            return nil
        }
        _ = try test.cache.normalize(try test.cache.prepare(document), response)
        return seen.values
    }
}

/// What a key resolver saw of one object through the listing API of `ResponseObject`.
private struct Listing: Equatable {
    /// `memberCount`.
    var count: Int
    /// Each `member(at:)` below `count`, as `name json` (both JSON text).
    var members: [String]
    /// `names`.
    var names: [String]
    /// The member `id` found by name (the subscript).
    var id: String?
    /// Whether `member(at:)` is nil at -1 and at `count`.
    var nilOutside: Bool

    /// The listing of `object`.
    init(of object: ResponseObject) {
        func text(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }
        count = object.memberCount
        members = (0..<count).map { object.member(at: $0).map { "\(text($0.name)) \(text($0.json))" } ?? "nil" }
        names = object.names
        id = object["id"]
        nilOutside = object.member(at: -1) == nil && object.member(at: count) == nil
    }

    /// A listing with these parts, nil outside the members.
    init(count: Int, members: [String], names: [String], id: String?) {
        self.count = count
        self.members = members
        self.names = names
        self.id = id
        self.nilOutside = true
    }
}

/// The listings a resolver saw, call after call (on the normalizing thread alone).
private final class Listings: @unchecked Sendable {
    var values: [Listing] = []
}
