import TestSupport
import Testing
@testable import NormCache

/// Entity rules for plain JSON documents (`configure`'s `documents`): the objects they
/// find are stored as the same records GraphQL data makes, so an entity updated through
/// one endpoint reads updated in every document that holds it.
@Suite struct DocumentEntityTests {
    static let start: UInt64 = 1_700_000_000
    static let rules = #"""
        {"documents": {"typeMember": "__typename",
                       "prefixes": {"GET /articles": "ArticlePage", "GET /articles/": "Article"},
                       "types": {"ArticlePage": {"members": {"articles": "Article"}},
                                 "Article": {"keyFields": ["id"], "members": {"author": "User"}},
                                 "User": {"keyFields": "id"}}}}
        """#
    static let page = #"{"articles": [{"id": 7, "title": "Caching", "author": {"id": 1, "name": "Ann"}}], "next": null}"#
    static let compactPage = #"{"articles":[{"id":7,"title":"Caching","author":{"id":1,"name":"Ann"}}],"next":null}"#

    func setUp(_ rules: String = Self.rules) throws -> (TestCache, Counter) {
        let now = Counter(start: Self.start)
        let test = try TestCache(clock: { now.value })
        try test.cache.configure(rules)
        return (test, now)
    }

    @Test func entitiesBecomeRecordsAndTheDocumentReadsBackWhole() throws {
        let (test, _) = try setUp()
        #expect(try test.cache.putDocument("GET /articles?page=1", json: Self.page))
        #expect(try test.cache.record("Article:7") == #"{"author":{"$reference":"User:1"},"id":7,"title":"Caching"}"#)
        #expect(try test.cache.record("User:1") == #"{"id":1,"name":"Ann"}"#)
        #expect(try test.cache.record("GET /articles?page=1") == #"""
            {"$document":{"articles":[{"$reference":"Article:7"}],"next":null},"$shape":{"articles":{"id":{},"title":{},"author":{"id":{},"name":{}}}}}
            """#)
        #expect(try test.cache.document("GET /articles?page=1") == ReadResult(status: .complete, data: Array(Self.compactPage.utf8)))
    }

    @Test func anEntityUpdatedElsewhereReadsUpdatedInEveryDocument() throws {
        let (test, now) = try setUp()
        try test.cache.putDocument("GET /articles?page=1", json: Self.page)
        now.value = Self.start + 10
        // The longest prefix wins: `GET /articles/7` is an Article, not a page.
        try test.cache.putDocument("GET /articles/7", json: #"{"id": 7, "title": "Caching, revised", "words": 900}"#)
        #expect(try test.cache.record("Article:7") == #"{"author":{"$reference":"User:1"},"id":7,"title":"Caching, revised","words":900}"#)
        // The page shows the new title, and not the member it never had.
        let page = try test.cache.document("GET /articles?page=1", options: ReadOptions(reportingFreshness: true))
        #expect(page.data == Array(#"{"articles":[{"id":7,"title":"Caching, revised","author":{"id":1,"name":"Ann"}}],"next":null}"#.utf8))
        #expect(page.oldestWrittenAt == Self.start)
        // GraphQL data (here, a put of records) reaches the documents alike.
        _ = try test.cache.put(json: #"{"User:1": {"name": "Ann Lee"}}"#)
        #expect(try test.cache.document("GET /articles/7").data == Array(#"{"id":7,"title":"Caching, revised","words":900}"#.utf8))
        #expect(try test.cache.document("GET /articles?page=1").data
            == Array(#"{"articles":[{"id":7,"title":"Caching, revised","author":{"id":1,"name":"Ann Lee"}}],"next":null}"#.utf8))
    }

    @Test func theTypeMemberKeysObjectsAnywhereAndUsesTheKeyRules() throws {
        let (test, _) = try setUp(#"""
            {"typePolicies": {"Person": {"keyFields": ["id"], "uniqueKeyGroup": "Node"}}, "defaultKeyFields": ["uuid"],
             "documents": {"typeMember": "kind"}}
            """#)
        let json = #"{"feed": {"items": [{"kind": "Person", "id": "a+b", "name": "Cy"}, {"kind": "Tag", "uuid": 5}, {"kind": "Tag"}, {"kind": 3, "id": 1}]}}"#
        try test.cache.putDocument("GET /feed", json: json)
        #expect(try test.cache.keys(withPrefix: "") == ["GET /feed", "Node:a\\+b", "Tag:5"])
        #expect(try test.cache.record("Node:a\\+b") == #"{"id":"a+b","kind":"Person","name":"Cy"}"#)
        #expect(try test.cache.document("GET /feed").data
            == Array(#"{"feed":{"items":[{"kind":"Person","id":"a+b","name":"Cy"},{"kind":"Tag","uuid":5},{"kind":"Tag"},{"kind":3,"id":1}]}}"#.utf8))
    }

    @Test func ofAMemberGivenTwiceTheLaterKeysAndTypesTheObject() throws {
        let (test, _) = try setUp()
        try test.cache.putDocument("GET /x", json: #"[{"__typename": "Tag", "__typename": "User", "id": 1, "id": 2}]"#)
        #expect(try test.cache.keys(withPrefix: "") == ["GET /x", "User:2"])
        #expect(try test.cache.record("User:2") == #"{"__typename":"User","id":2}"#)
        #expect(try test.cache.document("GET /x").data == Array(#"[{"__typename":"User","id":2}]"#.utf8))
    }

    @Test func aDocumentWithoutEntitiesIsKeptAsWritten() throws {
        let (test, _) = try setUp()
        // An Article without its key field stays in the document.
        let json = #"{"articles": [{"title": "Untitled"}],  "next": 2.50}"#
        try test.cache.putDocument("GET /articles?page=9", json: json)
        #expect(try test.cache.keys(withPrefix: "") == ["GET /articles?page=9"])
        #expect(try test.cache.document("GET /articles?page=9").data == Array(json.utf8))
    }

    @Test func entityFieldsAreJudgedLikeTheDocument() throws {
        let (test, now) = try setUp()
        try test.cache.putDocument("GET /articles?page=1", json: Self.page, options: WriteOptions(maxAge: 600))
        #expect(try test.cache.invalidate("User:1") == 2)
        let missed = try test.cache.document("GET /articles?page=1")
        #expect(missed.status == .miss && missed.data == nil)
        #expect(missed.missing == [
            FieldReport(path: [.key("articles"), .index(0), .key("author"), .key("id")], reason: .invalidated, record: "User:1", field: "id",
                        writtenAt: Self.start, expiredAt: Self.start),
            FieldReport(path: [.key("articles"), .index(0), .key("author"), .key("name")], reason: .invalidated, record: "User:1", field: "name",
                        writtenAt: Self.start, expiredAt: Self.start),
        ])
        let stale = try test.cache.document("GET /articles?page=1", options: ReadOptions(maxStale: 60))
        #expect(stale.status == .stale && stale.data == Array(Self.compactPage.utf8) && stale.stale.map(\.record) == ["User:1", "User:1"])
        // The lifetime the document was given is its entities' too.
        try test.cache.putDocument("GET /articles?page=1", json: Self.page, options: WriteOptions(maxAge: 600))
        now.value = Self.start + 600
        let expired = try test.cache.document("GET /articles?page=1", options: ReadOptions(partial: true))
        #expect(expired.missing.first == FieldReport(path: [], reason: .stale, record: "GET /articles?page=1", field: nil,
                                                     writtenAt: Self.start, expiredAt: Self.start + 600))
        #expect(expired.missing.count == 4)
        #expect(expired.data == Array(#"{"articles":[{"id":null,"title":null,"author":null}],"next":null}"#.utf8))
    }

    @Test func aRemovedEntityIsAMissAndARemovedMemberIsLeftOut() throws {
        let (test, _) = try setUp()
        try test.cache.putDocument("GET /articles?page=1", json: Self.page)
        #expect(try test.cache.removeField("title", of: "Article:7"))
        #expect(try test.cache.document("GET /articles?page=1").data == Array(#"{"articles":[{"id":7,"author":{"id":1,"name":"Ann"}}],"next":null}"#.utf8))
        #expect(try test.cache.remove("User:1"))
        let read = try test.cache.document("GET /articles?page=1", options: ReadOptions(partial: true))
        #expect(read.status == .miss)
        #expect(read.missing == [FieldReport(path: [.key("articles"), .index(0), .key("author")], reason: .absent, record: "User:1", field: nil)])
        #expect(read.data == Array(#"{"articles":[{"id":7,"author":null}],"next":null}"#.utf8))
    }

    @Test func aMemberHoldingAnEntityWhereTheDocumentHadNoneIsLeftOut() throws {
        let (test, _) = try setUp()
        try test.cache.putDocument("GET /articles/8", json: #"{"id": 8, "author": "anonymous", "title": "T"}"#)
        _ = try test.cache.put(json: #"{"Article:8": {"author": {"$reference": "User:2"}}, "User:2": {"id": 2}}"#)
        #expect(try test.cache.document("GET /articles/8") == ReadResult(status: .complete, data: Array(#"{"id":8,"title":"T"}"#.utf8)))
        // A list's elements share the union of their members: the first article is
        // offered the `extra` only the second had, and its record's `extra`, holding an
        // entity from another document, is left out, as are its reports.
        try test.cache.putDocument("GET /articles?page=1", json: #"{"articles": [{"id": 1, "extra": [{"__typename": "User", "id": 3}]}]}"#)
        #expect(try test.cache.invalidate("User:3") == 2)
        try test.cache.putDocument("GET /articles?page=2", json: #"{"articles": [{"id": 1}, {"id": 2, "extra": [5]}]}"#)
        #expect(try test.cache.document("GET /articles?page=2") == ReadResult(status: .complete, data: Array(#"{"articles":[{"id":1},{"id":2,"extra":[5]}]}"#.utf8)))
    }

    @Test func listsShareOneShapeTheUnionOfTheirElements() throws {
        let (test, _) = try setUp()
        try test.cache.putDocument("GET /articles/", json: #"[{"id": 1, "a": 1}, {"id": 2, "b": 2}]"#)
        #expect(try test.cache.record("GET /articles/") == #"{"$document":[{"$reference":"Article:1"},{"$reference":"Article:2"}],"$shape":{"id":{},"a":{},"b":{}}}"#)
        #expect(try test.cache.document("GET /articles/").data == Array(#"[{"id":1,"a":1},{"id":2,"b":2}]"#.utf8))
    }

    @Test func objectsOfTwoTypesAtOnePlaceTypeTheirMembersEachByTheirOwnRules() throws {
        // Posts and comments share the list's place, and so the place of their `by`; each
        // types it by its own rule, in turns (the place keeps the type it was last given,
        // with the parent type it was given for).
        let (test, _) = try setUp(#"""
            {"documents": {"typeMember": "__typename",
                           "types": {"Post": {"keyFields": ["id"], "members": {"by": "User"}},
                                     "Comment": {"keyFields": ["id"], "members": {"by": "Bot"}},
                                     "User": {"keyFields": ["id"]}, "Bot": {"keyFields": ["id"]}}}}
            """#)
        let json = #"""
            {"items": [{"__typename": "Post", "id": 1, "by": {"id": 7}}, {"__typename": "Comment", "id": 2, "by": {"id": 7}},
                       {"__typename": "Post", "id": 3, "by": {"id": 8}}, {"__typename": "Comment", "id": 4, "by": {"id": 8}}]}
            """#
        try test.cache.putDocument("GET /feed", json: json)
        #expect(try test.cache.keys(withPrefix: "") == ["Bot:7", "Bot:8", "Comment:2", "Comment:4", "GET /feed", "Post:1", "Post:3", "User:7", "User:8"])
        #expect(try test.cache.record("Post:3") == #"{"__typename":"Post","by":{"$reference":"User:8"},"id":3}"#)
        #expect(try test.cache.record("Comment:4") == #"{"__typename":"Comment","by":{"$reference":"Bot:8"},"id":4}"#)
        #expect(try test.cache.document("GET /feed").data == Array(#"""
            {"items":[{"__typename":"Post","id":1,"by":{"id":7}},{"__typename":"Comment","id":2,"by":{"id":7}},{"__typename":"Post","id":3,"by":{"id":8}},{"__typename":"Comment","id":4,"by":{"id":8}}]}
            """#.utf8))
    }

    @Test func wideObjectsAndEscapedNamesKeepEveryMemberInItsPlace() throws {
        // Twenty members (a place with more names than are compared in turn), given in
        // two orders, and names written with escapes, which are stored decoded.
        let (test, _) = try setUp()
        let names = (0..<20).map { "m\($0)" }
        let first = names.enumerated().map { #""\#($1)": \#($0)"# }.joined(separator: ", ")
        let second = names.enumerated().reversed().map { #""\#($1)": \#($0 + 100)"# }.joined(separator: ", ")
        let json = #"[{"id": 1, \#(first)}, {"id": 2, \#(second), "m\u0041": "a"}, {"\u0069d": 3, "m1\u0030": 10}]"#
        try test.cache.putDocument("GET /articles/", json: json)
        #expect(try test.cache.keys(withPrefix: "") == ["Article:1", "Article:2", "Article:3", "GET /articles/"])
        // A record's fields come in byte order of their names (`m1` < `m10` < `m2` < `mA`).
        let fields = (names.enumerated().map { #""\#($1)":\#($0 + 100)"# } + [#""mA":"a""#]).sorted().joined(separator: ",")
        #expect(try test.cache.record("Article:2") == #"{"id":2,\#(fields)}"#)
        #expect(try test.cache.record("Article:3") == #"{"id":3,"m10":10}"#)
        let shape = (["id"] + names + ["mA"]).map { #""\#($0)":{}"# }.joined(separator: ",")
        #expect(try test.cache.record("GET /articles/")
            == #"{"$document":[{"$reference":"Article:1"},{"$reference":"Article:2"},{"$reference":"Article:3"}],"$shape":{\#(shape)}}"#)
        // Entities read back with their members in the shape's order.
        let firstRead = names.enumerated().map { #""\#($1)":\#($0)"# }.joined(separator: ",")
        let secondRead = names.enumerated().map { #""\#($1)":\#($0 + 100)"# }.joined(separator: ",")
        #expect(try test.cache.document("GET /articles/").data
            == Array(#"[{"id":1,\#(firstRead)},{"id":2,\#(secondRead),"mA":"a"},{"id":3,"m10":10}]"#.utf8))
    }

    @Test func theFieldsOfOneMemberShareOneCopyOfItsName() throws {
        // However many entities have the member, and however its name is written, their
        // fields point at one copy of it, which the batch owns (not a copy a field).
        var rules = KeyRules()
        try Self.rules.withUTF8Bytes { (bytes) throws(NormCacheError) in try rules.configure(json: bytes) }
        let json = #"{"articles": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}, {"id": 3, "t\u0069tle": "c"}]}"#
        let keys = try json.withUTF8Bytes { (bytes) throws(NormCacheError) in
            let document = try JSONDocument(scanning: bytes)
            var skeleton = ByteBuffer()
            return try "GET /articles".withUTF8Bytes { (key) throws(NormCacheError) in
                let normalizer = try DocumentNormalizer(document, key: key, rules: rules, schema: nil, skeleton: &skeleton)
                var keys: [(name: String, address: UInt)] = []
                for index in 0..<normalizer.entities.fields.count {
                    let field = normalizer.entities.fields[index]
                    keys.append((String(decoding: field.keyBytes, as: UTF8.self), UInt(bitPattern: field.key)))
                }
                return keys
            }
        }
        #expect(keys.map { $0.name } == ["id", "title", "id", "title", "id", "title"])
        #expect(Set(keys.filter { $0.name == "id" }.map { $0.address }).count == 1)
        #expect(Set(keys.filter { $0.name == "title" }.map { $0.address }).count == 1)
    }

    @Test func entitiesInsideEntitiesAreReferencedInPlaceAtEveryDepth() throws {
        // Entities three deep, in a list and in a plain object inside an entity, members
        // after each of them, and a key of 205 bytes (a reference with a two-byte length):
        // each record holds exactly its own members, each reference stands where its
        // entity stood.
        let (test, _) = try setUp(#"""
            {"documents": {"prefixes": {"GET /a": "Article"},
                           "types": {"Article": {"keyFields": ["id"], "members": {"author": "User", "comments": "Comment", "meta": "Meta"}},
                                     "Meta": {"members": {"editor": "User"}},
                                     "Comment": {"keyFields": ["id"], "members": {"by": "User"}},
                                     "User": {"keyFields": ["id"], "members": {"org": "Org"}},
                                     "Org": {"keyFields": ["id"]}}}}
            """#)
        let long = String(repeating: "u", count: 200)
        let json = #"""
            {"id": 1, "author": {"id": "\#(long)", "org": {"id": 9, "name": "Acme"}, "name": "Ann"},
             "comments": [{"id": 2, "by": {"id": "b", "name": "Bo"}, "text": "hi"}, {"id": 3, "text": "yo"}],
             "meta": {"editor": {"id": "e"}, "rev": 4}, "title": "T"}
            """#
        try test.cache.putDocument("GET /a/1", json: json)
        #expect(try test.cache.keys(withPrefix: "") == ["Article:1", "Comment:2", "Comment:3", "GET /a/1", "Org:9", "User:b", "User:e", "User:\(long)"])
        #expect(try test.cache.record("Article:1") == #"""
            {"author":{"$reference":"User:\#(long)"},"comments":[{"$reference":"Comment:2"},{"$reference":"Comment:3"}],"id":1,"meta":{"editor":{"$reference":"User:e"},"rev":4},"title":"T"}
            """#)
        #expect(try test.cache.record("User:\(long)") == #"{"id":"\#(long)","name":"Ann","org":{"$reference":"Org:9"}}"#)
        #expect(try test.cache.record("Org:9") == #"{"id":9,"name":"Acme"}"#)
        #expect(try test.cache.record("Comment:2") == #"{"by":{"$reference":"User:b"},"id":2,"text":"hi"}"#)
        #expect(try test.cache.record("Comment:3") == #"{"id":3,"text":"yo"}"#)
        #expect(try test.cache.record("User:b") == #"{"id":"b","name":"Bo"}"#)
        #expect(try test.cache.record("User:e") == #"{"id":"e"}"#)
        #expect(try test.cache.record("GET /a/1") == #"""
            {"$document":{"$reference":"Article:1"},"$shape":{"id":{},"author":{"id":{},"org":{"id":{},"name":{}},"name":{}},"comments":{"id":{},"by":{"id":{},"name":{}},"text":{}},"meta":{"editor":{"id":{}}},"title":{}}}
            """#)
        #expect(try test.cache.document("GET /a/1").data == Array(#"""
            {"id":1,"author":{"id":"\#(long)","org":{"id":9,"name":"Acme"},"name":"Ann"},"comments":[{"id":2,"by":{"id":"b","name":"Bo"},"text":"hi"},{"id":3,"text":"yo"}],"meta":{"editor":{"id":"e"},"rev":4},"title":"T"}
            """#.utf8))
    }

    @Test func anEntityMayNotTakeTheKeyOfADocument() throws {
        let (test, _) = try setUp(#"{"documents": {"typeMember": "type", "types": {"T": {"keyFields": "id"}}}}"#)
        try test.cache.putDocument("T:1", json: #"{"n": 1}"#)
        #expect(throws: NormCacheError(.invalidArgument, "the entity 'T:1' of the document 'GET /t' has the key of a document")) {
            try test.cache.putDocument("GET /t", json: #"[{"type": "T", "id": 1}]"#)
        }
        #expect(throws: NormCacheError(.invalidArgument, "the entity 'T:2' of the document 'T:2' has the key of a document")) {
            try test.cache.putDocument("T:2", json: #"{"type": "T", "id": 2}"#)
        }
        #expect(throws: NormCacheError(.invalidArgument, "empty member name at byte 23 of the entity 'T:3' in the document 'GET /t'")) {
            try test.cache.putDocument("GET /t", json: #"{"type": "T", "id": 3, "": 0}"#)
        }
        #expect(try test.cache.keys(withPrefix: "") == ["T:1"])
        #expect(try test.cache.document("T:1").data == Array(#"{"n": 1}"#.utf8))
    }

    @Test func badRulesNameWhatAndWhere() throws {
        let test = try TestCache()
        let cases: [(String, String)] = [
            (#"{"documents": []}"#, "configuration error at byte 14: documents must be a JSON object"),
            (#"{"documents": {"prefix": {}}}"#, "configuration error at byte 25: unknown member 'documents.prefix' (known: typeMember, prefixes, types)"),
            (#"{"documents": {"typeMember": ""}}"#, "configuration error at byte 30: documents.typeMember must not be empty"),
            (#"{"documents": {"prefixes": {"": "A"}}}"#, "configuration error at byte 33: documents.prefixes has an empty prefix"),
            (#"{"documents": {"prefixes": {"GET /a": 1}}}"#, "configuration error at byte 38: documents.prefixes.GET /a must be a string"),
            (#"{"documents": {"types": {"A": {"keyFields": []}}}}"#, "configuration error at byte 44: documents.types.A.keyFields must not be empty"),
            (#"{"documents": {"types": {"A": {"members": {"b": null}}}}}"#, "configuration error at byte 48: documents.types.A.members.b must be a string"),
            (#"{"documents": {"types": {"A": {"keys": "id"}}}}"#, "configuration error at byte 40: unknown member 'documents.types.A.keys' (known: keyFields, members)"),
        ]
        for (json, message) in cases {
            #expect(throws: NormCacheError(.invalidArgument, message)) { try test.cache.configure(json) }
        }
        // Nothing of a failed configuration is kept.
        try test.cache.putDocument("GET /articles/1", json: #"{"id": 1}"#)
        #expect(try test.cache.keys(withPrefix: "") == ["GET /articles/1"])
    }
}
