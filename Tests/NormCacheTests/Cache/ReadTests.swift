import TestSupport
import Testing
@testable import NormCache

/// Reading operations back: hits, misses with their paths, partial data, field policies.
@Suite struct ReadTests {
    func starWarsCache() throws -> TestCache {
        let test = try TestCache()
        try test.cache.loadSchema(NormalizeTests.starWars + """

        extend type Droid @typePolicy(keyFields: "id")
        extend type Human @typePolicy(keyFields: "id")
        extend type Query @fieldPolicy(forField: "droid", keyArgs: "id")
        """)
        let op = try test.cache.prepare("{ hero { id name friends { id name } } }")
        _ = try test.cache.write(op, #"""
        {"data": {"hero": {"__typename": "Droid", "id": "2001", "name": "R2-D2", "friends": [
          {"__typename": "Human", "id": "1000", "name": "Luke"}, null, {"__typename": "Droid", "id": "3000", "name": "BB-8"}]}}}
        """#)
        return test
    }

    @Test func whatWasWrittenReadsBackExactly() throws {
        let test = try starWarsCache()
        let op = try test.cache.prepare("{ hero { id name friends { id name } } }")
        #expect(try test.cache.readText(op) == #"{"hero":{"id":"2001","name":"R2-D2","friends":[{"id":"1000","name":"Luke"},null,{"id":"3000","name":"BB-8"}]}}"#)
        let aliased = try test.cache.prepare("{ r2: hero { n: name __typename } }")
        #expect(try test.cache.readText(aliased) == #"{"r2":{"n":"R2-D2","__typename":"Droid"}}"#)
    }

    @Test func missesListTheirPaths() throws {
        let test = try starWarsCache()
        let op = try test.cache.prepare("{ hero { name appearsIn friends { name appearsIn } } human(id: \"1\") { name } }")
        #expect(try test.cache.readText(op) == "MISS [\"hero.appearsIn\", \"hero.friends.0.appearsIn\", \"hero.friends.2.appearsIn\", \"human\"]")
        #expect(try test.cache.readText(op, partial: true) == "MISS [\"hero.appearsIn\", \"hero.friends.0.appearsIn\", \"hero.friends.2.appearsIn\", \"human\"] {\"hero\":{\"name\":\"R2-D2\",\"appearsIn\":null,\"friends\":[{\"name\":\"Luke\",\"appearsIn\":null},null,{\"name\":\"BB-8\",\"appearsIn\":null}]},\"human\":null}")
    }

    @Test func aMissingRecordIsMissedAtItsReference() throws {
        let test = try starWarsCache()
        #expect(try test.cache.remove("Human:1000"))
        let op = try test.cache.prepare("{ hero { friends { name } } }")
        #expect(try test.cache.readText(op) == "MISS [\"hero.friends.0\"]")
        let empty = try TestCache()
        let root = try empty.cache.prepare("{ hero { name } droid { id } }")
        #expect(try empty.cache.readText(root) == "MISS [\"hero\", \"droid\"]")
    }

    @Test func fieldPoliciesResolveStraightToRecords() throws {
        let test = try starWarsCache()
        let one = try test.cache.prepare(#"{ droid(id: "3000") { name } }"#)
        #expect(try test.cache.readText(one) == #"{"droid":{"name":"BB-8"}}"#)
        let missing = try test.cache.prepare(#"{ droid(id: "9") { name } }"#)
        #expect(try test.cache.readText(missing) == "MISS [\"droid\"]")
    }

    @Test func listKeyArgumentsGiveOneRecordEach() throws {
        let test = try TestCache()
        try test.cache.loadSchema("""
        type Query { dogs(ids: [ID!]!, kind: String): [Dog] }
        type Dog { id: ID! name: String }
        extend type Dog @typePolicy(keyFields: "id")
        extend type Query @fieldPolicy(forField: "dogs", keyArgs: "kind ids")
        """)
        _ = try test.cache.put(json: #"{"Dog:pet+1": {"name": "Rex"}, "Dog:pet+2": {"name": "Fido"}}"#)
        let op = try test.cache.prepare(#"query ($ids: [ID!]!) { dogs(ids: $ids, kind: "pet") { name } }"#)
        #expect(try test.cache.readText(op, variables: #"{"ids": ["1", "2"]}"#) == #"{"dogs":[{"name":"Rex"},{"name":"Fido"}]}"#)
        #expect(try test.cache.readText(op, variables: #"{"ids": ["2", "3"]}"#) == "MISS [\"dogs.1\"]")
    }

    @Test func storedNullIsDataAndNonNullNullIsAnError() throws {
        let test = try TestCache()
        try test.cache.loadSchema("type Query { a: String b: String! }")
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"a": null, "b": null}}"#)
        #expect(try test.cache.readText(test.cache.prepare("{ a }")) == #"{"a":null}"#)
        #expect(throws: NormCacheError(.data, "the cache holds null at b, a non-null position")) {
            try test.cache.readText(test.cache.prepare("{ b }"))
        }
    }

    @Test func leafValuesComeBackAsWritten() throws {
        let test = try TestCache()
        let op = try test.cache.prepare("{ n big s scalar }")
        _ = try test.cache.write(op, #"{"data": {"n": 1.0, "big": 12345678901234567890, "s": "caf\u00e9", "scalar": {"b": [1, {"c": null}], "a": true}}}"#)
        #expect(try test.cache.readText(op) == #"{"n":1.0,"big":12345678901234567890,"s":"café","scalar":{"b":[1,{"c":null}],"a":true}}"#)
    }

    @Test func mutationsHaveTheirOwnRoot() throws {
        let test = try TestCache()
        try test.cache.configure(#"{"defaultKeyFields": ["id"], "storeMutationRoot": true}"#)
        let op = try test.cache.prepare(#"mutation { rename(id: "1", name: "X") { id name } }"#)
        #expect(try test.cache.write(op, #"{"data": {"rename": {"__typename": "Human", "id": "1", "name": "X"}}}"#)
            == ["Human:1.id", "Human:1.name", "Human:1.__typename", "MUTATION_ROOT.rename(id:1,name:X)"])
        #expect(try test.cache.readText(op) == #"{"rename":{"id":"1","name":"X"}}"#)
    }

    /// A read reserves its output from the last read's size, and, before an operation's
    /// first read, from the size of the data first normalized through it: the `data`
    /// member's text as written (whitespace and all), or a fragment's whole data. A write
    /// that fails notes nothing; a read's size, once known, is not replaced by a write's.
    @Test func aFirstReadReservesTheSizeOfTheDataWrittenThroughItsOperation() throws {
        let test = try TestCache()
        let op = try test.cache.prepare("{ hero { id name } }")
        #expect(op.outputSizeHint == 0)
        #expect(throws: NormCacheError.self) { try test.cache.write(op, #"{"data": [1]}"#) }
        #expect(op.outputSizeHint == 0)
        let data = #"{ "hero": {"__typename": "Droid", "id": "2001", "name": "R2-D2"} }"#
        _ = try test.cache.write(op, #"{"data": \#(data), "errors": []}"#)
        #expect(op.outputSizeHint == data.utf8.count)
        _ = try test.cache.write(op, #"{"data": {"hero": {"__typename": "Droid", "id": "2001", "name": "Artoo"}}}"#)
        #expect(op.outputSizeHint == data.utf8.count)
        #expect(try test.cache.readText(op) == #"{"hero":{"id":"2001","name":"Artoo"}}"#)
        #expect(op.outputSizeHint == #"{"hero":{"id":"2001","name":"Artoo"}}"#.utf8.count)
        _ = try test.cache.write(op, #"{"data": {"hero": {"__typename": "Droid", "id": "2001", "name": "R2-D2 of Naboo"}}}"#)
        #expect(op.outputSizeHint == #"{"hero":{"id":"2001","name":"Artoo"}}"#.utf8.count)

        let fragment = try test.cache.prepare("fragment DroidName on Droid { name }")
        let fragmentData = #"{"name": "C-3PO"}"#
        _ = try test.cache.writeFragment(fragment, key: "Droid:2000", data: fragmentData)
        #expect(fragment.outputSizeHint == fragmentData.utf8.count)
        #expect(try test.cache.readFragmentText(fragment, key: "Droid:2000") == #"{"name":"C-3PO"}"#)
        #expect(fragment.outputSizeHint == #"{"name":"C-3PO"}"#.utf8.count)
    }
}
