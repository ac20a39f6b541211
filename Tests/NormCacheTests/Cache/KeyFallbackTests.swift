import TestSupport
import Testing
@testable import NormCache

/// Key fallbacks: an object of a type a key rule covers that lacks its key fields is
/// keyed by its path (Apollo iOS's behaviour), and the write counts it; with strict keys
/// it fails the write with `.data`, naming its path, its type and the key fields, and
/// nothing is written. Exact records, counts and messages, through `normalize`, `write`,
/// `writeFragment` and `execute`.
@Suite struct KeyFallbackTests {
    /// Articles and comments keyed by `id`, without a schema: the network document adds
    /// `id` where the query does not select it, and a response may lack it.
    static let rules = #"{"typePolicies": {"Article": {"keyFields": ["id"]}, "Comment": {"keyFields": ["id"]}}}"#
    static let feedQuery = "query Feed { feed(first: 3) { title } }"
    /// The third article lacks its `id`.
    static let feedResponse = #"""
        {"data": {"feed": [{"__typename": "Article", "id": "1", "title": "One"}, {"__typename": "Article", "id": "2", "title": "Two"},
                           {"__typename": "Article", "title": "Three"}]}}
        """#
    static let feedRecords = #"{"Article:1":{"title":"One","__typename":"Article","id":"1"},"Article:2":{"title":"Two","__typename":"Article","id":"2"},"QUERY_ROOT.feed(first:3).2":{"title":"Three","__typename":"Article"},"QUERY_ROOT":{"feed(first:3)":[{"$reference":"Article:1"},{"$reference":"Article:2"},{"$reference":"QUERY_ROOT.feed(first:3).2"}]}}"#
    static let feedError = "invalid response data at feed.2: Article lacks its key field 'id'; strict keys refuse the fallback to its path key 'QUERY_ROOT.feed(first:3).2'"

    /// A cache with `rules` and the feed prepared.
    func feedCache() throws -> (TestCache, PreparedOperation) {
        let test = try TestCache()
        try test.cache.configure(Self.rules)
        return (test, try test.cache.prepare(Self.feedQuery))
    }

    @Test func aKeyedObjectWithoutItsKeyFieldIsKeyedByItsPathAndCounted() throws {
        let (test, feed) = try feedCache()
        let normalized = try NormalizedCache.normalize(feed, response: Self.feedResponse, strictKeys: false)
        #expect(String(decoding: normalized.records, as: UTF8.self) == Self.feedRecords)
        #expect(normalized.keyFallbacks == 1)
        let written = try test.cache.write(feed, response: Self.feedResponse, options: WriteOptions())
        #expect(written.isStored && written.keyFallbacks == 1 && written.changed.count == 9)
        #expect(try test.cache.keys(withPrefix: "") == ["Article:1", "Article:2", "QUERY_ROOT", "QUERY_ROOT.feed(first:3).2"])
        #expect(try test.cache.record("QUERY_ROOT.feed(first:3).2") == #"{"__typename":"Article","title":"Three"}"#)
    }

    @Test func strictKeysRefuseTheFallbackAndWriteNothing() throws {
        let (test, feed) = try feedCache()
        // What the cache held before stays as it was, fields and times.
        let before = #"{"data": {"feed": [{"__typename": "Article", "id": "1", "title": "Old"}]}}"#
        _ = try test.cache.write(try test.cache.prepare("query Feed { feed(first: 3) { title } }"), response: before)
        let snapshot = try test.cache.keys(withPrefix: "").map { key in (key, try test.cache.record(key)) }
        #expect(throws: NormCacheError(.data, Self.feedError)) {
            try test.cache.write(feed, response: Self.feedResponse, options: WriteOptions(strictKeys: true))
        }
        #expect(throws: NormCacheError(.data, Self.feedError)) {
            try NormalizedCache.normalize(feed, response: Self.feedResponse, strictKeys: true)
        }
        let after = try test.cache.keys(withPrefix: "").map { key in (key, try test.cache.record(key)) }
        #expect(after.map(\.0) == snapshot.map(\.0) && after.map(\.1) == snapshot.map(\.1))
        #expect(try test.cache.record("Article:1") == #"{"__typename":"Article","id":"1","title":"Old"}"#)
    }

    @Test func aResponseWithEveryKeyHasNoFallbackUnderStrictKeys() throws {
        let (test, feed) = try feedCache()
        let response = #"{"data": {"feed": [{"__typename": "Article", "id": "1", "title": "One"}]}}"#
        let written = try test.cache.write(feed, response: response, options: WriteOptions(strictKeys: true))
        #expect(written == WriteResult(isStored: true, changed: ["Article:1.title", "Article:1.__typename", "Article:1.id", "QUERY_ROOT.feed(first:3)"]))
    }

    @Test func aFallbackDeepInAListNamesItsPathAndFailsTheWholeWrite() throws {
        let (test, _) = try feedCache()
        let op = try test.cache.prepare("query Feed { feed(first: 3) { title comments { text } } }")
        let response = #"""
            {"data": {"feed": [{"__typename": "Article", "id": "1", "title": "One", "comments": []},
                               {"__typename": "Article", "id": "2", "title": "Two", "comments": [
                                   {"__typename": "Comment", "id": "c1", "text": "a"}, {"__typename": "Comment", "id": "c2", "text": "b"},
                                   {"__typename": "Comment", "text": "c"}, {"__typename": "Comment", "text": "d"}]}]}}
            """#
        let normalized = try NormalizedCache.normalize(op, response: response, strictKeys: false)
        #expect(normalized.keyFallbacks == 2)
        #expect(String(decoding: normalized.records, as: UTF8.self).contains(#""comments":[{"$reference":"Comment:c1"},{"$reference":"Comment:c2"},{"$reference":"Article:2.comments.2"},{"$reference":"Article:2.comments.3"}]"#))
        #expect(throws: NormCacheError(.data, "invalid response data at feed.1.comments.2: Comment lacks its key field 'id'; strict keys refuse the fallback to its path key 'Article:2.comments.2'")) {
            try test.cache.write(op, response: response, options: WriteOptions(strictKeys: true))
        }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
        #expect(try test.cache.write(op, response: response, options: WriteOptions()).keyFallbacks == 2)
    }

    @Test(arguments: [
        (#"{"__typename": "Article", "id": null, "title": "T"}"#, "Article lacks its key field 'id' (found null)"),
        (#"{"__typename": "Article", "id": true, "title": "T"}"#, "Article lacks its key field 'id' (found true)"),
        (#"{"__typename": "Article", "id": {"n": 1}, "title": "T"}"#, "Article lacks its key field 'id' (found object)"),
    ])
    func aKeyFieldThatCannotKeyIsAFallback(article: String, message: String) throws {
        let (test, feed) = try feedCache()
        let response = #"{"data": {"feed": [\#(article)]}}"#
        #expect(try NormalizedCache.normalize(feed, response: response, strictKeys: false).keyFallbacks == 1)
        #expect(throws: NormCacheError(.data, "invalid response data at feed.0: \(message); strict keys refuse the fallback to its path key 'QUERY_ROOT.feed(first:3).0'")) {
            try test.cache.write(feed, response: response, options: WriteOptions(strictKeys: true))
        }
    }

    @Test func everyKeyFieldTheObjectLacksIsNamed() throws {
        let test = try TestCache()
        try test.cache.configure(#"{"typePolicies": {"Book": {"keyFields": ["isbn", "edition", "lang"]}}}"#)
        let op = try test.cache.prepare("{ book { title } }")
        let response = #"{"data": {"book": {"__typename": "Book", "edition": 2, "lang": false, "title": "T"}}}"#
        #expect(throws: NormCacheError(.data, "invalid response data at book: Book lacks its key fields 'isbn', 'lang' (found false); strict keys refuse the fallback to its path key 'QUERY_ROOT.book'")) {
            try NormalizedCache.normalize(op, response: response, strictKeys: true)
        }
    }

    @Test func aKeyFieldSelectedUnderAnotherFieldIsAFallback() throws {
        let (test, _) = try feedCache()
        let op = try test.cache.prepare("query Feed { feed(first: 3) { id: title } }")
        let response = #"{"data": {"feed": [{"__typename": "Article", "id": "One"}]}}"#
        let normalized = try NormalizedCache.normalize(op, response: response, strictKeys: false)
        #expect(normalized.keyFallbacks == 1)
        #expect(String(decoding: normalized.records, as: UTF8.self).hasPrefix(#"{"QUERY_ROOT.feed(first:3).0":{"title":"One","__typename":"Article"}"#))
        #expect(throws: NormCacheError(.data, "invalid response data at feed.0: Article cannot be keyed by its key fields ('id'): the selection gives one of their response keys to an alias or a field with arguments; strict keys refuse the fallback to its path key 'QUERY_ROOT.feed(first:3).0'")) {
            try test.cache.write(op, response: response, options: WriteOptions(strictKeys: true))
        }
    }

    @Test func objectsOfTypesWithoutARuleAreNoFallbacks() throws {
        let test = try TestCache()
        let op = try test.cache.prepare("{ hero { name friends { name } } }")
        let response = #"{"data": {"hero": {"__typename": "Droid", "name": "R2", "friends": [{"__typename": "Human", "name": "Luke"}]}}}"#
        let written = try test.cache.write(op, response: response, options: WriteOptions(strictKeys: true))
        #expect(written.keyFallbacks == 0)
        #expect(try test.cache.keys(withPrefix: "") == ["QUERY_ROOT", "QUERY_ROOT.hero", "QUERY_ROOT.hero.friends.0"])
    }

    @Test func aKeyTheResolverGivesIsNoFallbackAndItsNilLeavesTheRuleToDecide() throws {
        let (test, _) = try feedCache()
        test.cache.setKeyResolver { typename, object in object["title"] == #""Three""# ? CacheKeyInfo(id: "three") : nil }
        let feed = try test.cache.prepare(Self.feedQuery)
        let normalized = try NormalizedCache.normalize(feed, response: Self.feedResponse, strictKeys: true)
        #expect(normalized.keyFallbacks == 0 && String(decoding: normalized.records, as: UTF8.self).contains(#""Article:three":{"title":"Three""#))
        test.cache.setKeyResolver { _, _ in nil }
        let unresolved = try test.cache.prepare(Self.feedQuery)
        #expect(throws: NormCacheError(.data, Self.feedError)) {
            try test.cache.write(unresolved, response: Self.feedResponse, options: WriteOptions(strictKeys: true))
        }
    }

    @Test func aFragmentWriteCountsTheFallbacksBelowItsKey() throws {
        let (test, _) = try feedCache()
        let fragment = try test.cache.prepare("fragment Thread on Article { title comments { text } }")
        let data = #"{"title": "One", "comments": [{"__typename": "Comment", "id": "c1", "text": "a"}, {"__typename": "Comment", "text": "b"}]}"#
        #expect(throws: NormCacheError(.data, "invalid response data at comments.1: Comment lacks its key field 'id'; strict keys refuse the fallback to its path key 'Article:1.comments.1'")) {
            try test.cache.writeFragment(fragment, key: "Article:1", data: data, options: WriteOptions(strictKeys: true))
        }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
        let written = try test.cache.writeFragment(fragment, key: "Article:1", data: data, options: WriteOptions())
        #expect(written == WriteResult(isStored: true, changed: [
            "Comment:c1.text", "Comment:c1.__typename", "Comment:c1.id", "Article:1.comments.1.text", "Article:1.comments.1.__typename",
            "Article:1.title", "Article:1.comments",
        ], keyFallbacks: 1))
    }

    @Test func aNoStoreWriteCountsNothing() throws {
        let (test, feed) = try feedCache()
        let written = try test.cache.write(feed, response: Self.feedResponse, options: WriteOptions(cacheControl: "no-store", strictKeys: true))
        #expect(written == WriteResult(isStored: false, changed: [], keyFallbacks: 0))
    }

    @Test func strictKeysInAFetchsReplyFailExecuteAndWriteNothing() throws {
        let (test, feed) = try feedCache()
        let reply = FetchReply(body: Array(Self.feedResponse.utf8), headers: WriteOptions(strictKeys: true))
        #expect(throws: NormCacheError(.data, Self.feedError)) {
            try test.cache.execute(feed, options: ExecuteOptions(policy: .networkOnly)) { _ in reply }
        }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
        let lenient = try test.cache.execute(feed, options: ExecuteOptions(policy: .networkOnly)) { _ in
            FetchReply(body: Array(Self.feedResponse.utf8))
        }
        #expect(lenient.read.status == .complete)
        #expect(try test.cache.keys(withPrefix: "").count == 4)
    }
}
