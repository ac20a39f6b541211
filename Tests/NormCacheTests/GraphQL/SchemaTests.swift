import TestSupport
import Testing
@testable import NormCache

/// Schemas from SDL and the key rules of their directives and of configuration JSON.
@Suite struct SchemaTests {
    func schemaError(_ sdl: String) -> String? {
        do throws(NormCacheError) {
            let schema = try Schema(sdl: Array(sdl.utf8))
            _ = try KeyRules(schema: schema)
            return nil
        } catch {
            return error.code == .schema ? error.message : "wrong code: \(error.message)"
        }
    }

    @Test func typesInterfacesUnionsAndExtensions() throws {
        let schema = try Schema(sdl: Array("""
        schema { query: Root }
        type Root { pet: Pet search: [Result] }
        interface Pet { id: ID! }
        interface Named implements Pet { id: ID! name: String }
        type Dog implements Named & Pet { id: ID! name: String }
        type Cat implements Named & Pet { id: ID! name: String }
        union Result = Dog | Cat
        extend type Dog { barks: Boolean }
        """.utf8))
        #expect(schema.rootTypes[.query] == "Root")
        #expect(schema.possibleTypes(of: "Pet") == ["Dog", "Cat"])
        #expect(schema.possibleTypes(of: "Result") == ["Dog", "Cat"])
        #expect(schema.possibleTypes(of: "Dog") == ["Dog"])
        #expect(schema.interfaces(of: "Dog").sorted() == ["Named", "Pet"])
        #expect(schema.field("barks", on: "Dog")?.type == .named("Boolean"))
        #expect(schema.field("__typename", on: "Cat")?.type == .nonNull(.named("String")))
        #expect(schema.field("__type", on: "Root") != nil)
        #expect(schema.isLeaf("Boolean") && !schema.isLeaf("Dog"))
    }

    @Test func schemaErrorsSayWhatAndWhere() {
        #expect(schemaError("type A { a: Int }\ntype A { b: Int }") == "GraphQL error at line 2, column 1: type 'A' is defined more than once")
        #expect(schemaError("extend type Nope { a: Int }") == "GraphQL error at line 1, column 8: cannot extend unknown type 'Nope'")
        #expect(schemaError("interface A { a: Int }\nextend type A { b: Int }") == "GraphQL error at line 2, column 8: cannot extend interface 'A' as type")
        #expect(schemaError("type A { a: Int a: String }") == "GraphQL error at line 1, column 17: field 'A.a' is defined more than once")
        #expect(schemaError("type A { a: Missing }") == "GraphQL error at line 1, column 10: unknown type 'Missing' in 'A.a'")
        #expect(schemaError("type B { b: Int }\ntype A implements B { a: Int }") == "GraphQL error at line 2, column 1: 'A' implements 'B', which is not an interface")
        #expect(schemaError("union U = Int") == "GraphQL error at line 1, column 1: union 'U' has member 'Int', which is not an object type")
        #expect(schemaError("type Dog { id: ID }\nextend type Dog @typePolicy(keyFields: \"id name\")")
            == "GraphQL error at line 2, column 17: key field 'name' of @typePolicy on 'Dog' is not a field of 'Dog'")
        #expect(schemaError("interface Pet { id: ID name: String }\ntype Dog implements Pet { id: ID name: String }\nextend interface Pet @typePolicy(keyFields: \"id\")\nextend type Dog @typePolicy(keyFields: \"name\")")
            == "GraphQL error at line 2, column 1: the type policy of 'Dog' conflicts with the one it inherits (Pet: id)")
        #expect(schemaError("type Query { dog(id: ID): Int }\nextend type Query @fieldPolicy(forField: \"dog\", keyArgs: \"name\")")
            == "GraphQL error at line 2, column 19: key argument 'name' of @fieldPolicy is not an argument of 'Query.dog'")
        #expect(schemaError("type Query { a: Int }\nextend type Query @fieldPolicy(forField: \"cat\", keyArgs: \"id\")")
            == "GraphQL error at line 2, column 19: @fieldPolicy on 'Query' names no field of 'Query'")
    }

    @Test func configuredPoliciesMayNotConflictThroughTheSchema() throws {
        let test = try TestCache()
        try test.cache.loadSchema("interface Node { id: ID! uuid: ID }\ninterface Named { name: String }\ntype Dog implements Node & Named { id: ID! uuid: ID name: String }")
        try test.cache.configure(#"{"typePolicies": {"Node": {"keyFields": ["id"]}}}"#)
        #expect(throws: NormCacheError(.invalidArgument, "GraphQL error at line 3, column 1: 'Dog' inherits conflicting type policies (Named: name; Node: id)")) {
            try test.cache.configure(#"{"typePolicies": {"Named": {"keyFields": ["name"]}}}"#)
        }
        try test.cache.configure(#"{"typePolicies": {"Dog": {"keyFields": ["id"]}}}"#)
    }

    @Test func configurationJSON() throws {
        var rules = KeyRules()
        try #"{"typePolicies": {"Pet": {"keyFields": "id name", "uniqueKeyGroup": "Animal"}}, "fieldPolicies": {"Query.pet": {"keyArgs": ["id"]}}, "possibleTypes": {"Pet": ["Dog"]}, "defaultKeyFields": ["uuid"]}"#
            .withUTF8Bytes { (bytes) throws(NormCacheError) in try rules.configure(json: bytes) }
        #expect(rules.typePolicies["Pet"] == KeyRules.TypePolicy(keyFields: ["id", "name"], group: "Animal"))
        #expect(rules.fieldPolicies["Query.pet"] == ["id"])
        #expect(rules.policy(for: "Dog", declaredType: nil, schema: nil)?.group == "Animal")
        #expect(rules.policy(for: "Bird", declaredType: nil, schema: nil) == KeyRules.TypePolicy(keyFields: ["uuid"], group: nil))
        #expect(rules.policy(for: "Bird", declaredType: "Pet", schema: nil)?.keyFields == ["id", "name"])
        let bad: [(String, String)] = [
            (#"{"typePolicies": []}"#, "configuration error at byte 17: typePolicies must be a JSON object"),
            (#"{"typePolicies": {"A": {}}}"#, "configuration error at byte 23: typePolicies.A needs keyFields"),
            (#"{"typePolicies": {"A": {"keyFields": []}}}"#, "configuration error at byte 37: typePolicies.A.keyFields must not be empty"),
            (#"{"fieldPolicies": {"dog": {"keyArgs": ["id"]}}}"#, "configuration error at byte 26: field policy 'dog' must be named 'Type.field'"),
            (#"{"colour": 1}"#, "configuration error at byte 11: unknown configuration member 'colour' (known: typePolicies, fieldPolicies, possibleTypes, defaultKeyFields, storeMutationRoot, documents, maxAges, defaultMaxAge)"),
        ]
        for (json, message) in bad {
            var fresh = KeyRules()
            #expect(throws: NormCacheError(.invalidArgument, message)) {
                try json.withUTF8Bytes { (bytes) throws(NormCacheError) in try fresh.configure(json: bytes) }
            }
        }
    }
}
