import TestSupport
import Testing
@testable import NormCache

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
