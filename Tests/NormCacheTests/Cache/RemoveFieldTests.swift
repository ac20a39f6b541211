import TestSupport
import Testing
@testable import NormCache

/// `removeField(_:of:)`: one field of one record deleted in place (the others kept, a
/// record left empty deleted), so that a read of an operation selecting it misses at
/// exactly that path; bad arguments and handles refused with their messages.
@Suite struct RemoveFieldTests {
    /// A cache holding `Pet:1` with three fields and `Pet:2` with one.
    func pets() throws -> TestCache {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"Pet:1": {"name": "Rex", "age": 3, "owner": {"$reference": "User:1"}}, "Pet:2": {"name": "Tom"}}"#)
        return test
    }

    @Test func theOtherFieldsStayExactly() throws {
        let test = try pets()
        #expect(try test.cache.removeField("age", of: "Pet:1"))
        #expect(try test.cache.record("Pet:1") == #"{"name":"Rex","owner":{"$reference":"User:1"}}"#)
        #expect(try !test.cache.removeField("age", of: "Pet:1"))
        #expect(try test.cache.removeField("owner", of: "Pet:1"))
        #expect(try test.cache.record("Pet:1") == #"{"name":"Rex"}"#)
        #expect(try test.cache.record("Pet:2") == #"{"name":"Tom"}"#)
        // A merge after it writes the field again, beside the one left.
        #expect(try test.cache.put(json: #"{"Pet:1": {"age": 4}}"#) == ["Pet:1.age"])
        #expect(try test.cache.record("Pet:1") == #"{"age":4,"name":"Rex"}"#)
    }

    @Test func theLastFieldTakesTheRecordWithIt() throws {
        let test = try pets()
        #expect(try test.cache.removeField("name", of: "Pet:2"))
        #expect(try test.cache.record("Pet:2") == nil)
        #expect(try test.cache.keys(withPrefix: "") == ["Pet:1"])
        #expect(try !test.cache.removeField("name", of: "Pet:2"))
    }

    @Test func anAbsentRecordOrFieldIsFalseAndWritesNothing() throws {
        let test = try pets()
        #expect(try !test.cache.removeField("name", of: "Pet:3"))
        #expect(try !test.cache.removeField("nam", of: "Pet:1"))
        #expect(try !test.cache.removeField("Name", of: "Pet:1"))
        #expect(try !test.cache.removeField("name ", of: "Pet:1"))
        #expect(try test.cache.record("Pet:1") == #"{"age":3,"name":"Rex","owner":{"$reference":"User:1"}}"#)
        #expect(try test.cache.stats().records == 2)
    }

    @Test func aRemovedRootEntryMissesAtItsPathUntilWrittenAgain() throws {
        let test = try TestCache()
        try test.cache.loadSchema("""
        type Query { feed(first: Int): [Post] viewer: User }
        type Post { id: ID! title: String }
        type User { id: ID! name: String }
        extend type Post @typePolicy(keyFields: "id")
        """)
        let ten = try test.cache.prepare("{ feed(first: 10) { id title } viewer { name } }")
        let three = try test.cache.prepare("{ feed(first: 3) { id } }")
        let response = #"{"data": {"feed": [{"__typename": "Post", "id": "1", "title": "Hi"}], "viewer": {"__typename": "User", "name": "Ann"}}}"#
        _ = try test.cache.write(ten, response)
        _ = try test.cache.write(three, #"{"data": {"feed": [{"__typename": "Post", "id": "1"}]}}"#)
        #expect(try !test.cache.removeField("feed(first: 10)", of: "QUERY_ROOT"))
        #expect(try !test.cache.removeField("feed", of: "QUERY_ROOT"))
        #expect(try test.cache.removeField("feed(first:10)", of: "QUERY_ROOT"))
        #expect(try test.cache.readText(ten) == "MISS [\"feed\"]")
        #expect(try test.cache.readText(ten, partial: true) == #"MISS ["feed"] {"feed":null,"viewer":{"name":"Ann"}}"#)
        #expect(try test.cache.readText(three) == #"{"feed":[{"id":"1"}]}"#)
        #expect(try test.cache.record("Post:1") == #"{"__typename":"Post","id":"1","title":"Hi"}"#)
        _ = try test.cache.write(ten, response)
        #expect(try test.cache.readText(ten) == #"{"feed":[{"id":"1","title":"Hi"}],"viewer":{"name":"Ann"}}"#)
    }

    @Test func badArgumentsAndHandlesAreRefused() throws {
        let test = try pets()
        #expect(throws: NormCacheError(.invalidArgument, "empty record key")) { try test.cache.removeField("name", of: "") }
        #expect(throws: NormCacheError(.invalidArgument, "empty field key")) { try test.cache.removeField("", of: "Pet:1") }
        let notUTF8: [UInt8] = [0x6E, 0xFF]
        let name = Array("name".utf8), key = Array("Pet:1".utf8)
        #expect(throws: NormCacheError(.invalidArgument, "field key is not valid UTF-8")) {
            try notUTF8.withUnsafeBytes { field in try key.withUnsafeBytes { try test.cache.removeField(field, of: $0) } }
        }
        #expect(throws: NormCacheError(.invalidArgument, "record key is not valid UTF-8")) {
            try name.withUnsafeBytes { field in try notUTF8.withUnsafeBytes { try test.cache.removeField(field, of: $0) } }
        }
        var options = CacheOptions()
        options.readOnly = true
        let reader = try test.reopen(options: options)
        #expect(throws: NormCacheError(.readOnly, "'\(test.path)' is open read-only")) { try reader.removeField("name", of: "Pet:1") }
        #expect(throws: NormCacheError(.readOnly, "'\(test.path)' is open read-only")) { try reader.removeField("name", of: "Pet:3") }
        #expect(reader.close())
        #expect(test.cache.close())
        #expect(throws: NormCacheError(.invalidArgument, "the cache '\(test.path)' is closed")) { try test.cache.removeField("name", of: "Pet:1") }
    }
}
