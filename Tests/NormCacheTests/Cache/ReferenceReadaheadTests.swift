import TestSupport
import Testing
@testable import NormCache

/// A read long and wide enough that the reader reads ahead for the references of a
/// list's elements (`ReferenceReadahead`: a list looked up in key order, a record cache
/// of `RecordCache.largeSlots` slots or more) returns, misses and throws exactly what it
/// does element by element, whatever the records ahead hold where the reader looks.
@Suite struct ReferenceReadaheadTests {
    static let schema = """
    type Query { posts: [Post] strictPosts: [Post!]! }
    type Post { id: ID! title: String aaa: Int author: User editor: User }
    type User { id: ID! name: String }
    extend type Post @typePolicy(keyFields: "id")
    extend type User @typePolicy(keyFields: "id")
    """

    /// Users: enough that the record cache passes `largeSlots` (it doubles once half
    /// full), each met twice as an author, by posts side by side.
    static let users = RecordCache.largeSlots / 4 + 14_000
    static let posts = 2 * users

    static func author(of post: Int) -> Int { (post / 2 * 7_919) % users }
    static func editor(of post: Int) -> Int { (post / 3 * 31) % users }
    static func isRemoved(_ user: Int) -> Bool { user % 97 == 3 }

    /// The posts as records, every few of them unlike the others where the readahead
    /// looks: a field before `author` (so its place moves), a null author, no author, a
    /// string author; and the JSON a read of `{ <field> { id title author { id name }
    /// editor { id name } } }` returns, with its missing paths.
    static func feed(listing field: String) -> (records: String, data: String, missing: [String]) {
        var records: [String] = [], data: [String] = [], missing: [String] = []
        for user in 0..<users where !isRemoved(user) {
            records.append(#""User:\#(user)": {"id": "\#(user)", "name": "user \#(user)"}"#)
        }
        func reference(_ user: Int, at path: String) -> (stored: String, read: String) {
            if isRemoved(user) { missing.append(path) }
            return (#"{"$reference": "User:\#(user)"}"#, isRemoved(user) ? "null" : #"{"id":"\#(user)","name":"user \#(user)"}"#)
        }
        for post in 0..<posts {
            var stored = [#""id": "\#(post)""#, #""title": "post \#(post)""#]
            let authorJSON: String
            switch post {
            case _ where post % 17 == 4:
                stored.append(#""author": null"#)
                authorJSON = "null"
            case _ where post % 23 == 6:
                missing.append("\(field).\(post).author")
                authorJSON = "null"
            case _ where post % 29 == 8:
                stored.append(#""author": "User:1""#)
                missing.append("\(field).\(post).author")
                authorJSON = "null"
            default:
                let (value, read) = reference(author(of: post), at: "\(field).\(post).author")
                stored.append(#""author": \#(value)"#)
                authorJSON = read
            }
            if post % 13 == 2 { stored.append(#""aaa": \#(post)"#) }
            let editor = reference(editor(of: post), at: "\(field).\(post).editor")
            stored.append(#""editor": \#(editor.stored)"#)
            records.append(#""Post:\#(post)": {\#(stored.joined(separator: ", "))}"#)
            data.append(#"{"id":"\#(post)","title":"post \#(post)","author":\#(authorJSON),"editor":\#(editor.read)}"#)
        }
        return (records.joined(separator: ","), "[" + data.joined(separator: ",") + "]", missing)
    }

    static func cache(listing field: String) throws -> (test: TestCache, data: String, missing: [String]) {
        let test = try TestCache()
        try test.cache.loadSchema(schema)
        let feed = feed(listing: field)
        let list = (0..<posts).map { #"{"$reference": "Post:\#($0)"}"# }.joined(separator: ",")
        _ = try test.cache.put(json: #"{\#(feed.records), "QUERY_ROOT": {"\#(field)": [\#(list)]}}"#)
        return (test, feed.data, feed.missing)
    }

    @Test func aWideReadReturnsEveryElementAsWritten() throws {
        let (test, data, missing) = try Self.cache(listing: "posts")
        let read = try test.cache.prepare("{ posts { id title author { id name } editor { id name } } }")
        let expected = "MISS \(missing) {\"posts\":\(data)}"
        for _ in 0..<2 {
            #expect(try test.cache.readText(read, partial: true) == expected)
        }
    }

    /// A damaged user and then a damaged post before it, far into the list, where the
    /// readahead reads them first: the read throws for the first in document order, as
    /// element by element.
    @Test func damagedRecordsAheadThrowInDocumentOrder() throws {
        let (test, _, _) = try Self.cache(listing: "strictPosts")
        let read = try test.cache.prepare("{ strictPosts { id author { id name } } }")
        let lastAuthor = Self.author(of: Self.posts - 2)
        try DamagedRecordTests.store([0xff], as: "User:\(lastAuthor)", in: test.cache)
        #expect(throws: NormCacheError(.notACache, "the record 'User:\(lastAuthor)' in '\(test.path)' is damaged")) {
            try test.cache.read(read)
        }
        try DamagedRecordTests.store([0x01, 0x05], as: "Post:\(Self.posts - 5)", in: test.cache)
        #expect(throws: NormCacheError(.notACache, "the record 'Post:\(Self.posts - 5)' in '\(test.path)' is damaged")) {
            try test.cache.read(read)
        }
    }
}
