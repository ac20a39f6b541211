import TestSupport
import Testing
@testable import NormCache

/// The programmatic key rule: first in the resolution order, with a view of the object.
@Suite struct KeyResolverTests {
    @Test func theResolverComesFirstAndMayDecline() throws {
        let test = try TestCache()
        try test.cache.configure(#"{"typePolicies": {"Dog": {"keyFields": ["id"]}, "Cat": {"keyFields": ["id"]}}}"#)
        test.cache.setKeyResolver { typename, object in
            switch typename {
            case "Dog": return object["license"].map { CacheKeyInfo(id: $0, group: "Licensed") }
            case "Bird": return CacheKeyInfo(id: object["name"] ?? "?")
            default: return nil
            }
        }
        let op = try test.cache.prepare("{ dog { id license } cat { id } bird { name } }")
        let records = try test.cache.normalize(op, #"{"data": {"dog": {"__typename": "Dog", "id": "1", "license": {"no": 5}}, "cat": {"__typename": "Cat", "id": "2"}, "bird": {"__typename": "Bird", "name": "Tweety"}}}"#)
        #expect(records == #"{"Licensed:{\"no\": 5}":{"id":"1","license":{"no":5},"__typename":"Dog"},"Cat:2":{"id":"2","__typename":"Cat"},"Bird:\"Tweety\"":{"name":"Tweety","__typename":"Bird"},"QUERY_ROOT":{"dog":{"$reference":"Licensed:{\"no\": 5}"},"cat":{"$reference":"Cat:2"},"bird":{"$reference":"Bird:\"Tweety\""}}}"#)
    }

    @Test func aFailingResolverFailsTheWriteAndWritesNothing() throws {
        struct Refused: Error, CustomStringConvertible {
            var description: String { "refused by policy" }
        }
        let test = try TestCache()
        test.cache.setKeyResolver { typename, _ in
            if typename == nil { throw NormCacheError(.invalidArgument, "no typename") }
            throw Refused()
        }
        let op = try test.cache.prepare("{ a { b } }")
        #expect(throws: NormCacheError(.callback, "the key resolver failed at a: no typename")) {
            try test.cache.write(op, #"{"data": {"a": {"b": 1}}}"#)
        }
        #expect(throws: NormCacheError(.callback, "the key resolver failed at a: refused by policy")) {
            try test.cache.write(op, #"{"data": {"a": {"__typename": "A", "b": 1}}}"#)
        }
        #expect(try test.cache.keys(withPrefix: "") == [])
        test.cache.setKeyResolver(nil)
        let again = try test.cache.prepare("{ a { b } }")
        #expect(try test.cache.write(again, #"{"data": {"a": {"b": 1}}}"#) == ["QUERY_ROOT.a.b", "QUERY_ROOT.a"])
    }
}
