import TestSupport
import Testing
@testable import NormCache

/// Direct cache access through fragments, as Apollo's readFragment and writeFragment.
@Suite struct FragmentTests {
    static let schema = """
    type Query { dog(id: ID!): Dog }
    type Dog { id: ID! name: String owner: User }
    type User { id: ID! name: String }
    extend type Dog @typePolicy(keyFields: "id")
    extend type User @typePolicy(keyFields: "id")
    """

    @Test func writeThenReadAnObjectAtItsKey() throws {
        let test = try TestCache()
        try test.cache.loadSchema(Self.schema)
        let fragment = try test.cache.prepare("fragment DogParts on Dog { name owner { id name } }")
        #expect(fragment.name == "DogParts")
        #expect(fragment.document == "fragment DogParts on Dog {\n  name\n  owner {\n    id\n    name\n    __typename\n  }\n  id\n  __typename\n}")
        let changed = try test.cache.writeFragment(fragment, key: "Dog:1", data: #"{"name": "Rex", "owner": {"__typename": "User", "id": "7", "name": "Ann"}}"#)
        #expect(changed == ["User:7.id", "User:7.name", "User:7.__typename", "Dog:1.name", "Dog:1.owner"])
        #expect(try test.cache.record("Dog:1") == #"{"name":"Rex","owner":{"$reference":"User:7"}}"#)
        #expect(try test.cache.readFragmentText(fragment, key: "Dog:1") == #"{"name":"Rex","owner":{"id":"7","name":"Ann"}}"#)
        #expect(try test.cache.readFragmentText(fragment, key: "Dog:2") == "MISS 1")
        let query = try test.cache.prepare(#"{ dog(id: "1") { name } }"#)
        #expect(throws: NormCacheError(.invalidArgument, "'DogParts' is a fragment, not an operation: read or write it at a record key (a fragment read or write)")) {
            try test.cache.readText(fragment)
        }
        #expect(throws: NormCacheError(.invalidArgument, "'the operation' is an operation, not a fragment: read it without a record key (an operation read)")) {
            try test.cache.readFragment(query, key: "Dog:1")
        }
    }

    @Test func choosingAmongFragments() throws {
        let test = try TestCache()
        let document = "fragment A on Dog { name ...B } fragment B on Dog { id }"
        #expect(throws: NormCacheError(.document, "the document has 2 fragments and no operation; name the fragment to use (A, B)")) {
            try test.cache.prepare(document)
        }
        let a = try test.cache.prepare(document, name: "A")
        #expect(a.document == "fragment A on Dog {\n  name\n  ...B\n  __typename\n}\n\nfragment B on Dog {\n  id\n  __typename\n}")
        _ = try test.cache.writeFragment(a, key: "Dog:9", data: #"{"name": "Fido", "id": "9"}"#)
        #expect(try test.cache.readFragmentText(a, key: "Dog:9") == #"{"name":"Fido","id":"9"}"#)
        let b = try test.cache.prepare("fragment A on Dog { name ...B } fragment B on Dog { id }", name: "B")
        #expect(try test.cache.readFragmentText(b, key: "Dog:9") == #"{"id":"9"}"#)
    }
}
