import TestSupport
import Testing
@testable import NormCache

/// Reads and writes at the edges the review found.
@Suite struct EdgeCaseTests {
    @Test func cyclicStoredReferencesCannotNestForever() throws {
        let test = try TestCache()
        let nested = String(repeating: "[", count: 300) + #"{"$reference": "A:1"}"# + String(repeating: "]", count: 300)
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"a": {"$reference": "A:1"}}, "A:1": {"id": 1, "f": "# + nested + "}}")
        let op = try test.cache.prepare("{ a { f { f { id } } } }")
        #expect(throws: NormCacheError.self) { try test.cache.readText(op) }
        do {
            _ = try test.cache.readText(op)
        } catch {
            #expect(error.code == .data)
            #expect(error.message.hasSuffix("nests deeper than 512 levels"))
        }
    }

    @Test func aReferenceReadAsALeafIsAMiss() throws {
        let test = try TestCache()
        _ = try test.cache.write(test.cache.prepare("{ dog { name } }"), #"{"data": {"dog": {"name": "Rex"}}}"#)
        #expect(try test.cache.readText(test.cache.prepare("{ dog }")) == "MISS [\"dog\"]")
    }

    @Test func aRequiredVariableIsRequiredWithoutAnyVariables() throws {
        let test = try TestCache()
        let op = try test.cache.prepare("query ($id: ID!) { droid(id: $id) { name } }")
        #expect(throws: NormCacheError(.invalidArgument, "variable '$id' of type ID! is missing")) {
            try test.cache.write(op, #"{"data": {"droid": {"name": "R2"}}}"#)
        }
    }

    @Test func typenamesMustBePossibleAndAliasesDoNotMakeKeys() throws {
        let test = try TestCache()
        try test.cache.loadSchema(NormalizeTests.starWars + "\nextend type Droid @typePolicy(keyFields: \"id\")\n")
        let op = try test.cache.prepare("{ hero { name } }")
        #expect(throws: NormCacheError(.data, "invalid response data at hero.__typename: 'Starship' is not a possible type of Character")) {
            try test.cache.write(op, #"{"data": {"hero": {"__typename": "Starship", "name": "x"}}}"#)
        }
        let aliased = try test.cache.prepare("{ droid(id: \"1\") { id: name } }")
        let records = try test.cache.normalize(aliased, #"{"data": {"droid": {"__typename": "Droid", "id": "R2-D2"}}}"#)
        #expect(records == #"{"QUERY_ROOT.droid(id:1)":{"name":"R2-D2","__typename":"Droid"},"QUERY_ROOT":{"droid(id:1)":{"$reference":"QUERY_ROOT.droid(id:1)"}}}"#)
    }

    @Test func keyPartsEscapePerScalar() {
        #expect(Normalizer.escapeKeyPart("p+\u{301}") == "p\\+\u{301}")
        #expect(Normalizer.escapeKeyPart("a\\b+c") == "a\\\\b\\+c")
    }

    @Test func aListFieldPolicyTakesASingleValueAsAListOfOne() throws {
        let test = try TestCache()
        try test.cache.loadSchema("""
        type Query { dogs(ids: [ID!]!): [Dog] }
        type Dog { id: ID! name: String }
        extend type Dog @typePolicy(keyFields: "id")
        extend type Query @fieldPolicy(forField: "dogs", keyArgs: "ids")
        """)
        _ = try test.cache.put(json: #"{"Dog:1": {"name": "Rex"}}"#)
        let op = try test.cache.prepare("query ($ids: [ID!]!) { dogs(ids: $ids) { name } }")
        #expect(try test.cache.readText(op, variables: #"{"ids": "1"}"#) == #"{"dogs":[{"name":"Rex"}]}"#)
    }
}
