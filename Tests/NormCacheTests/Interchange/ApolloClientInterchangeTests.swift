import TestSupport
import Testing
@testable import NormCache

/// Apollo Client's `cache.extract()` JSON into normcache and back.
@Suite struct ApolloClientInterchangeTests {
    /// An extract as Apollo Client 3 writes it: root fields with arguments, references,
    /// a list of references, objects without an id inline (nested, in a list), a JSON
    /// scalar object, a keyArgs key, and `__META`.
    static let extract = #"""
        {"ROOT_QUERY":{"__typename":"Query","hero({\"episode\":\"JEDI\"})":{"__ref":"Droid:2001"},\#
        "search({\"filter\":{\"kinds\":[\"DROID\",\"HUMAN\"],\"text\":\"R2, or 3PO\"},\"first\":2})":[{"__ref":"Droid:2001"},{"__ref":"Human:1000"}],\#
        "stats":{"__typename":"Stats","count":2,"top":{"__typename":"Top","name":"Luke"}},\#
        "feed:{\"type\":\"news\"}":[]},\#
        "Droid:2001":{"__typename":"Droid","id":"2001","name":"R2-D2","friends":[{"__ref":"Human:1000"},null],"appearsIn":["NEWHOPE","JEDI"],"specs":{"built":1977}},\#
        "Human:1000":{"__typename":"Human","id":"1000","name":"Luke Skywalker","height({\"unit\":\"FOOT\"})":5.6430448,\#
        "friendsConnection({\"first\":2})":{"__typename":"FriendsConnection","edges":[{"__typename":"FriendsEdge","node":{"__ref":"Droid:2001"}}]}},\#
        "__META":{"extraRootIds":["Droid:2001"]}}
        """#

    @Test func importWritesTheRecordsNormcacheWouldHaveWritten() throws {
        let test = try TestCache()
        let changed = try test.cache.importRecords(.apolloClient, from: Self.extract)
        #expect(changed.count == 25)
        #expect(try test.cache.keys(withPrefix: "") == [
            "Droid:2001", "Human:1000", "Human:1000.friendsConnection(first:2)", "Human:1000.friendsConnection(first:2).edges.0",
            "QUERY_ROOT", "QUERY_ROOT.stats", "QUERY_ROOT.stats.top",
        ])
        #expect(try test.cache.record("QUERY_ROOT") == #"""
            {"__typename":"Query","feed:{\"type\":\"news\"}":[],"hero(episode:JEDI)":{"$reference":"Droid:2001"},\#
            "search([filter:kinds:[DROID, HUMAN],text:R2\\, or 3PO],first:2)":[{"$reference":"Droid:2001"},{"$reference":"Human:1000"}],\#
            "stats":{"$reference":"QUERY_ROOT.stats"}}
            """#)
        #expect(try test.cache.record("QUERY_ROOT.stats") == #"{"__typename":"Stats","count":2,"top":{"$reference":"QUERY_ROOT.stats.top"}}"#)
        #expect(try test.cache.record("Droid:2001") == #"""
            {"__typename":"Droid","appearsIn":["NEWHOPE","JEDI"],"friends":[{"$reference":"Human:1000"},null],"id":"2001","name":"R2-D2","specs":{"built":1977}}
            """#)
        #expect(try test.cache.record("Human:1000.friendsConnection(first:2).edges.0") == #"{"__typename":"FriendsEdge","node":{"$reference":"Droid:2001"}}"#)
        #expect(try test.cache.record("Human:1000")?.contains(#""height(unit:FOOT)":5.6430448"#) == true)
    }

    @Test func operationsReadWhatWasImported() throws {
        let test = try TestCache()
        _ = try test.cache.importRecords(.apolloClient, from: Self.extract)
        let operation = try test.cache.prepare("""
            { hero(episode: JEDI) { name friends { name } } stats { count top { name } }
              search(first: 2, filter: {text: "R2, or 3PO", kinds: [DROID, HUMAN]}) { name } }
            """)
        #expect(try test.cache.readText(operation) == #"""
            {"hero":{"name":"R2-D2","friends":[{"name":"Luke Skywalker"},null]},"stats":{"count":2,"top":{"name":"Luke"}},\#
            "search":[{"name":"R2-D2"},{"name":"Luke Skywalker"}]}
            """#)
    }

    @Test func exportGivesTheExtractBackWithoutMeta() throws {
        let test = try TestCache()
        _ = try test.cache.importRecords(.apolloClient, from: Self.extract)
        let exported = String(decoding: try test.cache.exportRecords(.apolloClient), as: UTF8.self)
        #expect(exported == #"""
            {"Droid:2001":{"__typename":"Droid","appearsIn":["NEWHOPE","JEDI"],"friends":[{"__ref":"Human:1000"},null],"id":"2001","name":"R2-D2","specs":{"built":1977}},\#
            "Human:1000":{"__typename":"Human","friendsConnection({\"first\":2})":{"__typename":"FriendsConnection","edges":[{"__typename":"FriendsEdge","node":{"__ref":"Droid:2001"}}]},\#
            "height({\"unit\":\"FOOT\"})":5.6430448,"id":"1000","name":"Luke Skywalker"},\#
            "ROOT_QUERY":{"__typename":"Query","feed:{\"type\":\"news\"}":[],"hero({\"episode\":\"JEDI\"})":{"__ref":"Droid:2001"},\#
            "search({\"filter\":{\"kinds\":[\"DROID\",\"HUMAN\"],\"text\":\"R2, or 3PO\"},\"first\":2})":[{"__ref":"Droid:2001"},{"__ref":"Human:1000"}],\#
            "stats":{"__typename":"Stats","count":2,"top":{"__typename":"Top","name":"Luke"}}}}
            """#)
        // Exported again into a second cache, the records are the same.
        let second = try TestCache()
        _ = try second.cache.importRecords(.apolloClient, from: exported)
        for key in try test.cache.keys(withPrefix: "") { #expect(try second.cache.record(key) == test.cache.record(key)) }
    }

    @Test(arguments: [
        (#"hero({"episode":"JEDI"})"#, "hero(episode:JEDI)"),
        (#"reviews({"list":[{"stars":1,"text":"x"},{"stars":2}]})"#, "reviews(list:[stars:1,text:x,stars:2])"),
        (#"f({"a":{"b":{"c":[1,null,2.5]},"d":"(x)"},"e":null,"f":true})"#, #"f([a:[b:c:[1, <null>, 2.5]],d:\(x\)],e:null,f:true)"#),
        (#"f({"s":"null","t":"a:b"})"#, #"f(s:\null,t:a\:b)"#),
        (#"f({"ids":[[1,2],[]]})"#, "f(ids:[[1, 2], []])"),
    ])
    func fieldKeysTranslateBothWays(client: String, normcache: String) {
        #expect(ApolloClientFieldKey.storageKey(Array(client.utf8)) == Array(normcache.utf8))
        #expect(ApolloClientFieldKey.clientKey(Array(normcache.utf8)) == Array(client.utf8))
    }

    /// Keys Apollo Client writes that the notation has no form for are kept as they are.
    @Test(arguments: [#"feed:{"type":"news"}"#, #"feed@connection({"key":"x"})"#, "hero(x)", "hero({})", #"hero({"a":1})@client"#, "name"])
    func otherKeysAreCarriedOverAsTheyAre(key: String) {
        #expect(ApolloClientFieldKey.storageKey(Array(key.utf8)) == Array(key.utf8))
        #expect(ApolloClientFieldKey.clientKey(Array(key.utf8)) == Array(key.utf8))
    }

    /// What the notation cannot tell apart comes back as its likeliest JSON.
    @Test func stringsThatReadAsNumbersAndFloatsLoseTheirType() {
        #expect(ApolloClientFieldKey.storageKey(Array(#"human({"id":"1000"})"#.utf8)) == Array("human(id:1000)".utf8))
        #expect(ApolloClientFieldKey.clientKey(Array("human(id:1000)".utf8)) == Array(#"human({"id":1000})"#.utf8))
        #expect(ApolloClientFieldKey.storageKey(Array(#"f({"x":"true"})"#.utf8)) == Array("f(x:true)".utf8))
        #expect(ApolloClientFieldKey.clientKey(Array("f(x:2.0)".utf8)) == Array(#"f({"x":2.0})"#.utf8))
    }

    @Test(arguments: [
        ("{\"ROOT_QUERY\": {\"a\": 1}", NormCacheError(.json, "JSON error at byte 23: unexpected end of input (truncated?)")),
        ("[]", NormCacheError(.json, "apollo-client import: the file must be a JSON object of record keys (cache.extract()), not array")),
        (#"{"ROOT_QUERY": 5}"#, NormCacheError(.json, "apollo-client import: record 'ROOT_QUERY' must be an object of fields, not number")),
        (#"{"__META": []}"#, NormCacheError(.json, "apollo-client import: __META must be an object, not array")),
        (#"{"ROOT_QUERY": {"hero": {"__ref": "Droid:1", "name": "x"}}, "Droid:1": {}}"#,
         NormCacheError(.json, "apollo-client import: field 'hero' of record 'ROOT_QUERY' holds a malformed reference at byte 24: an object with \"__ref\" must have no other member, and its value must be a string")),
        (#"{"ROOT_QUERY": {"hero": {"__ref": 7}}}"#,
         NormCacheError(.json, "apollo-client import: field 'hero' of record 'ROOT_QUERY' holds a malformed reference at byte 24: an object with \"__ref\" must have no other member, and its value must be a string")),
        (#"{"ROOT_QUERY": {"a": 1, "hero({\"episode\":\"JEDI\"})": [{"__ref": "Droid:9"}]}}"#,
         NormCacheError(.data, "apollo-client import: field 'hero({\"episode\":\"JEDI\"})' of record 'ROOT_QUERY' refers to 'Droid:9', which the file does not hold; nothing was imported")),
        (#"{"ROOT_QUERY": {"": 1}}"#, NormCacheError(.invalidArgument, "apollo-client import: empty field name at byte 16 in record 'ROOT_QUERY'")),
    ])
    func malformedExtractsWriteNothing(input: String, error: NormCacheError) throws {
        let test = try TestCache()
        #expect(throws: error) { try test.cache.importRecords(.apolloClient, from: input) }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }
}

/// Path-keyed records that Apollo Client cannot hold inline.
@Suite struct ApolloClientSharedPathRecordTests {
    /// A record at its path that another record refers to as well stays a record, so that
    /// both references hold.
    @Test func aPathRecordReferredToTwiceStaysARecord() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"""
            {"QUERY_ROOT": {"hero": {"$reference": "QUERY_ROOT.hero"}, "stats": {"$reference": "QUERY_ROOT.stats"}},
             "QUERY_ROOT.hero": {"name": "R2"}, "QUERY_ROOT.stats": {"best": {"$reference": "QUERY_ROOT.hero"}}}
            """#)
        #expect(String(decoding: try test.cache.exportRecords(.apolloClient), as: UTF8.self) == #"""
            {"ROOT_QUERY":{"hero":{"__ref":"QUERY_ROOT.hero"},"stats":{"best":{"__ref":"QUERY_ROOT.hero"}}},"QUERY_ROOT.hero":{"name":"R2"}}
            """#)
    }
}

/// With a schema, the export types argument values as the schema does.
@Suite struct ApolloClientSchemaTypedExportTests {
    static let schema = """
        type Query { human(id: ID!): Human  search(first: Int, exact: Boolean, text: String, filter: Filter, kind: Kind, when: Date): [Human] }
        type Human { id: ID! name: String friends(first: Int, after: String): [Human] }
        input Filter { zip: String, near: [Float], kind: Kind }
        enum Kind { HUMAN DROID }
        scalar Date
        """

    @Test func stringsTheSchemaTypesAsTextStayStrings() throws {
        let test = try TestCache()
        try test.cache.loadSchema(Self.schema)
        let extract = #"""
            {"Human:1000":{"__typename":"Human","friends({\"after\":\"42\",\"first\":10})":[],"id":"1000"},\#
            "ROOT_QUERY":{"__typename":"Query","human({\"id\":\"1000\"})":{"__ref":"Human:1000"},\#
            "search({\"exact\":true,\"filter\":{\"kind\":\"HUMAN\",\"near\":[1.5,2],\"zip\":\"01234\"},\"first\":2,\"kind\":\"DROID\",\"text\":\"true\",\"when\":\"2024\"})":[]}}
            """#
        _ = try test.cache.importRecords(.apolloClient, from: extract)
        #expect(try test.cache.record("QUERY_ROOT")?.contains("search(exact:true,[filter:kind:HUMAN,near:[1.5, 2],zip:01234],first:2,kind:DROID,text:true,when:2024)") == true)
        // Every value comes back as it was but the custom scalar, which the schema does not type.
        let exported = String(decoding: try test.cache.exportRecords(.apolloClient), as: UTF8.self)
        #expect(exported == extract.replacingOccurrences(#"\"when\":\"2024\""#, #"\"when\":2024"#))
        // Without the schema, strings that read as numbers or booleans come back as those.
        let plain = try TestCache()
        _ = try plain.cache.importRecords(.apolloClient, from: extract)
        #expect(String(decoding: try plain.cache.exportRecords(.apolloClient), as: UTF8.self).contains(#"human({\"id\":1000})"#))
    }
}
