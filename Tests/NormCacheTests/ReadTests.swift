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
        try test.cache.configure(#"{"defaultKeyFields": ["id"]}"#)
        let op = try test.cache.prepare(#"mutation { rename(id: "1", name: "X") { id name } }"#)
        #expect(try test.cache.write(op, #"{"data": {"rename": {"__typename": "Human", "id": "1", "name": "X"}}}"#)
            == ["Human:1.id", "Human:1.name", "Human:1.__typename", "MUTATION_ROOT.rename(id:1,name:X)"])
        #expect(try test.cache.readText(op) == #"{"rename":{"id":"1","name":"X"}}"#)
    }
}

/// Field policies whose key arguments are paths into input objects.
@Suite struct FieldPolicyPathTests {
    @Test func keyArgumentPathsThroughInputObjectsAndOneList() throws {
        let test = try TestCache()
        try test.cache.loadSchema("""
        type Query { hero(input: HeroInput!): Hero heroes(inputs: [HeroInput!]!): [Hero] }
        input HeroInput { id: ID! episode: String }
        type Hero { id: ID! name: String }
        extend type Hero @typePolicy(keyFields: "id")
        extend type Query @fieldPolicy(forField: "hero", keyArgs: "input.id")
        extend type Query @fieldPolicy(forField: "heroes", keyArgs: "inputs.id")
        """)
        _ = try test.cache.put(json: #"{"Hero:1": {"name": "Luke"}, "Hero:2": {"name": "Leia"}}"#)
        #expect(try test.cache.readText(test.cache.prepare(#"{ hero(input: {id: "2", episode: "JEDI"}) { name } }"#)) == #"{"hero":{"name":"Leia"}}"#)
        let heroes = try test.cache.prepare("query ($inputs: [HeroInput!]!) { heroes(inputs: $inputs) { name } }")
        #expect(try test.cache.readText(heroes, variables: #"{"inputs": [{"id": "1"}, {"id": "2"}]}"#) == #"{"heroes":[{"name":"Luke"},{"name":"Leia"}]}"#)
        #expect(try test.cache.readText(heroes, variables: #"{"inputs": [{"id": "3"}]}"#) == "MISS [\"heroes.0\"]")
        #expect(throws: NormCacheError(.schema, "GraphQL error at line 3, column 19: key argument 'input.nope' of @fieldPolicy is not an argument of 'Query.hero'")) {
            try test.cache.loadSchema("""
            type Query { hero(input: HeroInput!): Int }
            input HeroInput { id: ID! }
            extend type Query @fieldPolicy(forField: "hero", keyArgs: "input.nope")
            """)
        }
    }
}

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
