// The program of the Swift guide (docs/guides/swift.md): a schema, an operation with
// variables, the document to send, a write, reads that hit and miss, errors, a key
// resolver and tasks sharing one cache, on app.cache in the current folder.
import NormCache

let schema = """
    type Query { feed(first: Int!): [Article!]! }
    type Article { id: ID! title: String! author: User! }
    type User { uuid: ID! name: String! }
    """
let response = #"""
    {"data": {"feed": [{"__typename": "Article", "id": "1", "title": "Hello",
        "author": {"__typename": "User", "uuid": "u-7", "name": "Ada"}}]}}
    """#

do {
    // A first cache: options, and every object with an id stored as Type:id.
    var options = CacheOptions()
    options.durability = .full
    let cache = try NormalizedCache(path: "app.cache", options: options)
    try cache.clear()  // an empty cache, so that every run prints the same
    try cache.configure(#"{"defaultKeyFields": ["id"]}"#)

    // A key function for what the rules do not key: a User by its uuid, which the query selects.
    cache.setKeyResolver { typename, object in
        // object["uuid"] is the member's JSON text: a string with its quotes.
        guard typename == "User", let uuid = object["uuid"], uuid.first == "\"" else { return nil }
        return CacheKeyInfo(id: String(uuid.dropFirst().dropLast()))
    }

    // The GraphQL flow: a schema, an operation prepared once (after the rules), the document to send.
    try cache.loadSchema(schema)
    let feed = try cache.prepare("query Feed($n: Int!) { feed(first: $n) { title author { uuid name } } }")
    print("send:", feed.document)
    let changed = try cache.write(feed, response: response, variables: #"{"n": 1}"#)
    print("changed:", changed.count, "fields, the first", changed[0])
    let hit = try cache.read(feed, variables: #"{"n": 1}"#)
    print("read:", String(decoding: hit.data ?? [], as: UTF8.self))
    let more = try cache.read(feed, variables: #"{"n": 2}"#)
    if more.status == .miss, let missing = more.missing.first {
        print("miss:", missing.path, missing.reason, missing.record, missing.field ?? "")
    }
    print("record User:u-7:", try cache.record("User:u-7") ?? "none")

    // Errors: NormCacheError, with the C status as its code and the library's message.
    do {
        _ = try cache.prepare("{ feed(first: 1) { headline } }")
    } catch {
        print("error", error.code.rawValue, error.code == .document, error.message)
    }

    // Tasks: one cache, four readers at once.
    let hits = await withTaskGroup(of: Int.self) { group in
        for _ in 0..<4 {
            group.addTask {
                var hits = 0
                for _ in 0..<1000 where (try? cache.read(feed, variables: #"{"n": 1}"#))?.status == .complete {
                    hits += 1
                }
                return hits
            }
        }
        var total = 0
        for await hits in group { total += hits }
        return total
    }
    print("tasks: \(hits) reads hit")
} catch {
    print("normcache: \(error)")
}
