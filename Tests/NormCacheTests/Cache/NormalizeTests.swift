import TestSupport
import Testing
@testable import NormCache

/// Normalizing responses into records: keys, paths, references, merge order, errors.
@Suite struct NormalizeTests {
    static let starWars = """
    schema { query: Query mutation: Mutation }
    type Query { hero(episode: Episode): Character droid(id: ID!): Droid human(id: ID!): Human
      search(text: String): [SearchResult] node(id: ID!): Node }
    type Mutation { rename(id: ID!, name: String!): Character }
    enum Episode { NEWHOPE EMPIRE JEDI }
    interface Node { id: ID! }
    interface Character { id: ID! name: String! friends: [Character] friendsConnection(first: Int): FriendsConnection! appearsIn: [Episode]! }
    type Human implements Character & Node { id: ID! name: String! friends: [Character] friendsConnection(first: Int): FriendsConnection! appearsIn: [Episode]! height: Float }
    type Droid implements Character & Node { id: ID! name: String! friends: [Character] friendsConnection(first: Int): FriendsConnection! appearsIn: [Episode]! primaryFunction: String }
    type FriendsConnection { totalCount: Int edges: [FriendsEdge] }
    type FriendsEdge { cursor: String node: Character }
    type Starship { name: String }
    union SearchResult = Human | Droid | Starship
    """

    @Test func keyedObjectsBecomeRecordsAndTheRestFollowTheirPath() throws {
        let test = try TestCache()
        try test.cache.configure(#"{"typePolicies": {"Droid": {"keyFields": ["id"]}, "Human": {"keyFields": "id"}}}"#)
        let op = try test.cache.prepare("{ hero { name friends { name } } }")
        let records = try test.cache.normalize(op, #"""
        {"data": {"hero": {"__typename": "Droid", "id": "2001", "name": "R2-D2", "friends": [
          {"__typename": "Human", "id": "1000", "name": "Luke Skywalker"},
          {"__typename": "Pet", "name": "BB"}]}}}
        """#)
        #expect(records == #"{"Human:1000":{"name":"Luke Skywalker","__typename":"Human","id":"1000"},"Droid:2001.friends.1":{"name":"BB","__typename":"Pet"},"Droid:2001":{"name":"R2-D2","friends":[{"$reference":"Human:1000"},{"$reference":"Droid:2001.friends.1"}],"__typename":"Droid","id":"2001"},"QUERY_ROOT":{"hero":{"$reference":"Droid:2001"}}}"#)
    }

    @Test func withoutKeysEverythingHangsOffTheRoot() throws {
        let test = try TestCache()
        let op = try test.cache.prepare("query ($first: Int) { hero(episode: JEDI) { name friendsConnection(first: $first) { edges { node { name } } } } }")
        let records = try test.cache.normalize(op, #"{"data": {"hero": {"name": "R2-D2", "friendsConnection": {"edges": [{"node": {"name": "Luke"}}]}}}}"#,
                                               variables: #"{"first": 2}"#)
        #expect(records == #"{"QUERY_ROOT.hero(episode:JEDI).friendsConnection(first:2).edges.0.node":{"name":"Luke"},"QUERY_ROOT.hero(episode:JEDI).friendsConnection(first:2).edges.0":{"node":{"$reference":"QUERY_ROOT.hero(episode:JEDI).friendsConnection(first:2).edges.0.node"}},"QUERY_ROOT.hero(episode:JEDI).friendsConnection(first:2)":{"edges":[{"$reference":"QUERY_ROOT.hero(episode:JEDI).friendsConnection(first:2).edges.0"}]},"QUERY_ROOT.hero(episode:JEDI)":{"name":"R2-D2","friendsConnection(first:2)":{"$reference":"QUERY_ROOT.hero(episode:JEDI).friendsConnection(first:2)"}},"QUERY_ROOT":{"hero(episode:JEDI)":{"$reference":"QUERY_ROOT.hero(episode:JEDI)"}}}"#)
    }

    @Test func keyFieldsEscapeAndRefuseBooleans() throws {
        let test = try TestCache()
        try test.cache.configure(#"{"typePolicies": {"Dog": {"keyFields": ["id", "breed"]}, "Cat": {"keyFields": ["indoor"]}}}"#)
        let op = try test.cache.prepare("{ dog { name } cat { name } }")
        let records = try test.cache.normalize(op, #"{"data": {"dog": {"__typename": "Dog", "id": 10, "breed": "Be\\ag+le", "name": "Rex"}, "cat": {"__typename": "Cat", "indoor": true, "name": "Tom"}}}"#)
        #expect(records == #"{"Dog:10+Be\\\\ag\\+le":{"name":"Rex","__typename":"Dog","id":10,"breed":"Be\\ag+le"},"QUERY_ROOT.cat":{"name":"Tom","__typename":"Cat"},"QUERY_ROOT":{"dog":{"$reference":"Dog:10+Be\\\\ag\\+le"},"cat":{"$reference":"QUERY_ROOT.cat"}}}"#)
    }

    @Test func schemaPoliciesInterfacesAndGroups() throws {
        let test = try TestCache()
        try test.cache.loadSchema(Self.starWars + "\nextend interface Node @typePolicy(keyFields: \"id\")\n")
        try test.cache.configure(#"{"typePolicies": {"Node": {"keyFields": ["id"], "uniqueKeyGroup": "Node"}}}"#)
        let op = try test.cache.prepare("{ hero { name } }")
        #expect(op.document == "{\n  hero {\n    name\n    id\n    __typename\n  }\n}")
        let records = try test.cache.normalize(op, #"{"data": {"hero": {"__typename": "Human", "id": "1000", "name": "Luke"}}}"#)
        #expect(records == #"{"Node:1000":{"name":"Luke","id":"1000","__typename":"Human"},"QUERY_ROOT":{"hero":{"$reference":"Node:1000"}}}"#)
    }

    @Test func aliasesShareOneStoredField() throws {
        let test = try TestCache()
        let op = try test.cache.prepare("{ a: hero(episode: JEDI) { name } b: hero(episode: JEDI) { id } }")
        let records = try test.cache.normalize(op, #"{"data": {"a": {"name": "R2"}, "b": {"id": "2001"}}}"#)
        #expect(records == #"{"QUERY_ROOT.hero(episode:JEDI)":{"name":"R2","id":"2001"},"QUERY_ROOT":{"hero(episode:JEDI)":{"$reference":"QUERY_ROOT.hero(episode:JEDI)"}}}"#)
    }

    @Test func laterOccurrencesWin() throws {
        let test = try TestCache()
        try test.cache.configure(#"{"defaultKeyFields": ["id"]}"#)
        let op = try test.cache.prepare("{ first { id name } list { id name } }")
        let changed = try test.cache.write(op, #"{"data": {"first": {"__typename": "P", "id": 1, "name": "a"}, "list": [{"__typename": "P", "id": 1, "name": "b"}, {"__typename": "P", "id": 1, "name": "c"}]}}"#)
        #expect(changed == ["P:1.id", "P:1.name", "P:1.__typename", "QUERY_ROOT.first", "QUERY_ROOT.list"])
        #expect(try test.cache.record("P:1") == #"{"__typename":"P","id":1,"name":"c"}"#)
    }

    @Test func typeConditionsAndDirectives() throws {
        let test = try TestCache()
        try test.cache.loadSchema(Self.starWars)
        let op = try test.cache.prepare("""
        query ($withFriends: Boolean!) { hero { name ... on Droid { primaryFunction } ... on Human { height }
          friends @include(if: $withFriends) { name } } }
        """)
        let records = try test.cache.normalize(op, #"{"data": {"hero": {"__typename": "Droid", "name": "R2", "primaryFunction": "Astromech"}}}"#,
                                               variables: #"{"withFriends": false}"#)
        #expect(records == #"{"QUERY_ROOT.hero":{"name":"R2","primaryFunction":"Astromech","__typename":"Droid"},"QUERY_ROOT":{"hero":{"$reference":"QUERY_ROOT.hero"}}}"#)
    }

    @Test func badResponsesNameThePathAndWriteNothing() throws {
        let test = try TestCache()
        try test.cache.loadSchema(Self.starWars)
        let op = try test.cache.prepare("{ hero { name friends { name } } }")
        let cases: [(String, String)] = [
            (#"{"data": {"hero": {"__typename": "Droid", "friends": []}}}"#, "invalid response data at hero.name: the response has no 'name'"),
            (#"{"data": {"hero": {"__typename": "Droid", "name": null, "friends": []}}}"#, "invalid response data at hero.name: null in a non-null position (String!)"),
            (#"{"data": {"hero": {"__typename": "Droid", "name": "R2", "friends": {"name": "x"}}}}"#, "invalid response data at hero.friends: expected a list ([Character]), found object"),
            (#"{"data": {"hero": {"__typename": "Droid", "name": "R2", "friends": [5]}}}"#, "invalid response data at hero.friends.0: expected an object, found number"),
            (#"{"data": {"hero": [{"name": "R2"}]}}"#, "invalid response data at hero: expected an object (Character), found array"),
            (#"{"data": {"hero": {"__typename": 7, "name": "R2", "friends": []}}}"#, "invalid response data at hero.__typename: __typename must be a string, found number"),
        ]
        for (response, message) in cases {
            #expect(throws: NormCacheError(.data, message)) { try test.cache.write(op, response) }
        }
        #expect(throws: NormCacheError(.data, "a GraphQL response must be a JSON object with 'data', not array")) { try test.cache.write(op, "[]") }
        #expect(try test.cache.keys(withPrefix: "") == [])
        #expect(try test.cache.write(op, #"{"errors": [{"message": "boom"}]}"#) == [])
        #expect(try test.cache.write(op, #"{"data": null, "errors": []}"#) == [])
    }
}
