import TestSupport
import Testing
@testable import NormCache

/// Leaves of a response: the common ones (numbers, plain strings, lists of them) are
/// encoded while members are matched, the rest on the full path. Both must store the
/// same bytes and refuse the same responses with the same messages.
@Suite struct LeafEncodingTests {
    /// Leaves of every kind: a non-null list of non-null strings, scalars, nested and
    /// nullable lists, and a custom scalar.
    static let leafSchema = """
    type Query { tags: [String!]! one: String count: Int grid: [[Int]] any: JSON maybe: [String] }
    scalar JSON
    """

    @Test func typedListsRefuseScalarsAndNullsWhereTheTypeSaysSo() throws {
        let test = try TestCache()
        try test.cache.loadSchema(Self.leafSchema)
        let op = try test.cache.prepare("{ tags one }")
        let cases: [(String, String)] = [
            (#"{"data": {"tags": "x", "one": "a"}}"#, "invalid response data at tags: expected a list ([String!]!), found string"),
            (#"{"data": {"tags": 5, "one": "a"}}"#, "invalid response data at tags: expected a list ([String!]!), found number"),
            (#"{"data": {"tags": ["a", null], "one": "a"}}"#, "invalid response data at tags.1: null in a non-null position (String!)"),
            (#"{"data": {"tags": null, "one": "a"}}"#, "invalid response data at tags: null in a non-null position ([String!]!)"),
        ]
        for (response, message) in cases {
            #expect(throws: NormCacheError(.data, message)) { try test.cache.write(op, response) }
        }
        #expect(try test.cache.keys(withPrefix: "") == [])
    }

    @Test func fastAndFullPathsStoreTheSameValues() throws {
        let test = try TestCache()
        try test.cache.loadSchema(Self.leafSchema)
        let op = try test.cache.prepare("{ tags one count grid any maybe }")
        // Plain values take the fast path; escapes, nested lists, nulls and objects the full one.
        _ = try test.cache.write(op, #"{"data": {"tags": ["a", "b\n\"c\""], "one": "caf\u00e9", "count": -1.5e3, "grid": [[1], [2, null]], "any": [1, "x", [2], {"k": true}], "maybe": ["p", null]}}"#)
        #expect(try test.cache.record("QUERY_ROOT") == #"{"any":[1,"x",[2],{"k":true}],"count":-1.5e3,"grid":[[1],[2,null]],"maybe":["p",null],"one":"café","tags":["a","b\n\"c\""]}"#)
        _ = try test.cache.write(op, #"{"data": {"tags": [], "one": "x", "count": 0, "grid": [], "any": [], "maybe": []}}"#)
        #expect(try test.cache.readText(op) == #"{"tags":[],"one":"x","count":0,"grid":[],"any":[],"maybe":[]}"#)
    }

    @Test func withoutASchemaListsAreStoredAsGiven() throws {
        let test = try TestCache()
        let op = try test.cache.prepare("{ a b c }")
        _ = try test.cache.write(op, #"{"data": {"a": ["x", 1, "y"], "b": [["nested"]], "c": "s"}}"#)
        #expect(try test.cache.readText(op) == #"{"a":["x",1,"y"],"b":[["nested"]],"c":"s"}"#)
    }

    @Test func theFirstMemberOfANameWinsInAnyOrder() throws {
        let test = try TestCache()
        try test.cache.configure(#"{"defaultKeyFields": ["id"]}"#)
        let op = try test.cache.prepare("{ item { id name score } }")
        // Members out of the selection's order, __typename first and last, a name given twice.
        let changed = try test.cache.write(op, #"{"data": {"item": {"score": 3, "__typename": "T", "name": "n", "id": "1", "name": "later"}}}"#)
        #expect(changed == ["T:1.id", "T:1.name", "T:1.score", "T:1.__typename", "QUERY_ROOT.item"])
        #expect(try test.cache.record("T:1") == #"{"__typename":"T","id":"1","name":"n","score":3}"#)
        _ = try test.cache.write(op, #"{"data": {"item": {"id": "1", "name": "m", "score": 4, "__typename": "T"}}}"#)
        #expect(try test.cache.readText(op) == #"{"item":{"id":"1","name":"m","score":4}}"#)
    }

    @Test func typesNestedInMoreListsThanTheLimitAreRefusedAtPrepare() throws {
        let test = try TestCache()
        func lists(_ depth: Int, around core: String = "Int") -> String {
            String(repeating: "[", count: depth) + core + String(repeating: "]", count: depth)
        }
        try test.cache.loadSchema("type Query { deep: \(lists(32)) ok: \(lists(31)) }")
        #expect(throws: NormCacheError(.document, "GraphQL error at line 1, column 3: the type of 'deep' nests more than 31 lists")) {
            try test.cache.prepare("{ deep }")
        }
        let ok = try test.cache.prepare("{ ok }")
        let value = lists(31, around: "7")
        _ = try test.cache.write(ok, #"{"data": {"ok": \#(value)}}"#)
        #expect(try test.cache.readText(ok) == #"{"ok":\#(value)}"#)
    }
}
