// The Swift quick start of README.md: open a cache, prepare a query, write a response, read it back.
import NormCache

do {
    let cache = try NormalizedCache(path: "quickstart.cache")
    // Every object that has an id is stored once, as the record Type:id.
    try cache.configure(#"{"defaultKeyFields": ["id"]}"#)

    let feed = try cache.prepare("{ feed(first: 2) { id title author { id name } } }")
    // feed.document is what to send to the server: the query with __typename added.
    _ = try cache.write(feed, response: #"""
        {"data": {"feed": [
            {"__typename": "Article", "id": "1", "title": "Hello",
             "author": {"__typename": "User", "id": "7", "name": "Ada"}},
            {"__typename": "Article", "id": "2", "title": "Again",
             "author": {"__typename": "User", "id": "7", "name": "Ada"}}]}}
        """#)
    print(try cache.record("Article:1") ?? "none")  // the author is a reference to User:7
    print(String(decoding: try cache.read(feed).data ?? [], as: UTF8.self))  // exactly the selection

    // Another query returns User:7 with a new name: every article that references it sees it.
    let user = try cache.prepare("query ($id: ID!) { user(id: $id) { id name } }")
    _ = try cache.write(user, response: #"{"data": {"user": {"__typename": "User", "id": "7", "name": "Ada L."}}}"#,
                        variables: #"{"id": "7"}"#)
    print(String(decoding: try cache.read(feed).data ?? [], as: UTF8.self))

    // Another argument is another field: a miss, with what is missing.
    let more = try cache.read(try cache.prepare("{ feed(first: 3) { id title } }"))
    for missing in more.missing where more.status == .miss {
        print(missing.path, missing.reason, missing.record, missing.field ?? "")
    }
} catch {
    print("normcache: \(error)")  // a NormCacheError: its code (the C status) and message
}
