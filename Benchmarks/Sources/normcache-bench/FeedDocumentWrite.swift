extension Bench {
    /// The entity rules that make the feed's posts and their authors records when the
    /// feed is stored as a plain JSON document under `GET /feed` (a REST adapter's call).
    static let feedDocumentRules = #"""
        {"documents": {"prefixes": {"GET /feed": "FeedPage"},
                       "types": {"FeedPage": {"members": {"feed": "Post"}},
                                 "Post": {"keyFields": ["id"], "members": {"author": "User"}},
                                 "User": {"keyFields": ["id"]}}}}
        """#

    /// The feed's posts written as a JSON document with entities
    /// (`normcache_put_document`, what a REST adapter calls) into a new cache, against
    /// the GraphQL write of the same posts into a new cache (`normcache_write` of the
    /// feed query), interleaved run by run: the same records, reached through the
    /// document's entity rules instead of an operation.
    func measureFeedDocumentWrite(response: [UInt8], posts: Int) throws {
        // The response's data member, `{"feed":[...]}`, is the document.
        let document = Array(response.dropFirst(#"{"data":"#.utf8.count).dropLast())
        let steps: [() throws -> Double] = [
            { [self] in
                let path = freshPath("feed-document.cache")
                defer { removeCache(path) }
                let cache = try CacheClient(path: path)
                try cache.configure(Self.feedDocumentRules)
                return try document.withUnsafeBytes { bytes in try timed { try cache.putDocument("GET /feed", json: bytes) } }
            },
            { [self] in
                let path = freshPath("feed-graphql.cache")
                defer { removeCache(path) }
                let cache = try CacheClient(path: path)
                try cache.configure(Responses.keyByID)
                let operation = try cache.prepare(Responses.feedQuery)
                return try response.withUnsafeBytes { bytes in try timed { try cache.write(operation, response: bytes) } }
            },
        ]
        let series = try interleave(steps, label: "feed document N=\(posts)")
        add(Figure(workload: "feed", measure: "document write with entities N=\(posts)", normcache: series[0],
                   objects: 2 * posts, bytes: document.count, baselineName: "the GraphQL write of the same posts",
                   baseline: series[1]))
    }
}
