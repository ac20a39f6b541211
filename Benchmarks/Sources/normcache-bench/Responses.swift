/// The workloads' data, generated deterministically: the same arguments give the same
/// bytes on every machine and in every run.
enum Responses {
    /// The key rule of the response workloads: objects are keyed
    /// `<__typename>:<id>` (`Post:1`, `User:7`), as the issue and Apollo's default do.
    static let keyByID = #"{"defaultKeyFields": ["id"]}"#

    /// The feed query of the issue.
    static let feedQuery = "query Feed { feed { id title url score published tags summary author { id name } } }"

    /// A feed response of `posts` posts with 100 distinct authors per 1,000 posts;
    /// `revision` > 0 changes one field (the score) of every post.
    static func feed(posts: Int, revision: Int = 0) -> [UInt8] {
        var out = JSONWriter()
        var random = SplitMix(seed: 42)
        let authors = Swift.max(1, posts / 10)
        out.raw(#"{"data":{"feed":["#)
        for index in 0..<posts {
            if index > 0 { out.raw(",") }
            let author = Int(random.next() % UInt64(authors))
            out.raw(#"{"__typename":"Post","id":""#); out.int(index + 1)
            out.raw(#"","title":"#); out.string("Post \(index + 1): notes on normalized caches, part \(random.next() % 97)")
            out.raw(#","url":"#); out.string("https://example.com/posts/\(index + 1)")
            out.raw(#","score":"#); out.int(Int(random.next() % 10_000) + revision)
            out.raw(#","published":"#); out.string("2026-\(10 + index % 3)-\(10 + index % 19)T12:\(10 + index % 50):00Z")
            out.raw(#","tags":["#)
            out.string("tag\(random.next() % 50)"); out.raw(","); out.string("tag\(random.next() % 50)")
            out.raw(#"],"summary":"#)
            out.string("A summary of post \(index + 1), long enough to look like one: caching, records, merges and reads.")
            out.raw(#","author":{"__typename":"User","id":""#); out.int(author + 1)
            out.raw(#"","name":"#); out.string("Author \(author + 1)")
            out.raw("}}")
        }
        out.raw("]}}")
        return out.bytes
    }

    /// The SWAPI query of the swapi workload: people with their homeworld and films.
    static let swapiQuery = """
        query People { allPeople { edges { node { id name birthYear \
        homeworld { id name population } \
        filmConnection { edges { node { id title director releaseDate } } } } } } }
        """

    /// A SWAPI response of `people` people sharing 60 planets and 7 films.
    static func swapi(people: Int) -> [UInt8] {
        var out = JSONWriter()
        var random = SplitMix(seed: 7)
        out.raw(#"{"data":{"allPeople":{"__typename":"PeopleConnection","edges":["#)
        for index in 0..<people {
            if index > 0 { out.raw(",") }
            let planet = Int(random.next() % 60)
            out.raw(#"{"__typename":"PeopleEdge","node":{"__typename":"Person","id":"#); out.string("cGVvcGxlOj\(index)")
            out.raw(#","name":"#); out.string("Person \(index)")
            out.raw(#","birthYear":"#); out.string("\(index % 90)BBY")
            out.raw(#","homeworld":{"__typename":"Planet","id":"#); out.string("cGxhbmV0czo\(planet)")
            out.raw(#","name":"#); out.string("Planet \(planet)")
            out.raw(#","population":"#); out.int(planet * 1_000_000 + 17)
            out.raw(#"},"filmConnection":{"__typename":"PersonFilmsConnection","edges":["#)
            let films = 1 + Int(random.next() % 7)
            for film in 0..<films {
                if film > 0 { out.raw(",") }
                out.raw(#"{"__typename":"PersonFilmsEdge","node":{"__typename":"Film","id":"#); out.string("ZmlsbXM6\(film)")
                out.raw(#","title":"#); out.string("Episode \(film + 1)")
                out.raw(#","director":"#); out.string("Director \(film % 3)")
                out.raw(#","releaseDate":"#); out.string("19\(77 + film * 3)-05-25")
                out.raw("}}")
            }
            out.raw("]}}}")
        }
        out.raw("]}}}")
        return out.bytes
    }

    /// The query of the large workload: wide posts, each with comments and replies
    /// three levels deep, and authors everywhere.
    static let largeQuery = """
        query Large { posts { id title body score tags metrics { views likes shares } \
        author { id name bio } \
        comments { id body score author { id name bio } replies { id body author { id name bio } } } } }
        """

    /// A large response of about `megabytes` MB for `largeQuery`.
    static func large(megabytes: Int) -> [UInt8] {
        var out = JSONWriter()
        var random = SplitMix(seed: 1234)
        let target = megabytes * 1_000_000
        out.raw(#"{"data":{"posts":["#)
        var post = 0
        var comment = 0
        while out.bytes.count < target {
            if post > 0 { out.raw(",") }
            post += 1
            out.raw(#"{"__typename":"Post","id":""#); out.int(post)
            out.raw(#"","title":"#); out.string("Large post \(post)")
            out.raw(#","body":"#); out.string(String(repeating: "Lorem ipsum dolor sit amet \(post). ", count: 4))
            out.raw(#","score":"#); out.int(Int(random.next() % 1000))
            out.raw(#","tags":["#); out.string("t\(post % 7)"); out.raw(","); out.string("t\(post % 11)")
            out.raw(#"],"metrics":{"views":"#); out.int(Int(random.next() % 100_000))
            out.raw(#","likes":"#); out.int(Int(random.next() % 1000))
            out.raw(#","shares":"#); out.int(Int(random.next() % 100)); out.raw("}")
            out.raw(#","author":"#); user(&out, Int(random.next() % 5000))
            out.raw(#","comments":["#)
            for commentIndex in 0..<8 {
                if commentIndex > 0 { out.raw(",") }
                comment += 1
                out.raw(#"{"__typename":"Comment","id":""#); out.int(comment)
                out.raw(#"","body":"#); out.string("Comment \(comment) on post \(post): a reasonably sized remark.")
                out.raw(#","score":"#); out.int(Int(random.next() % 100))
                out.raw(#","author":"#); user(&out, Int(random.next() % 5000))
                out.raw(#","replies":["#)
                for replyIndex in 0..<2 {
                    if replyIndex > 0 { out.raw(",") }
                    comment += 1
                    reply(&out, comment, author: Int(random.next() % 5000))
                }
                out.raw("]}")
            }
            out.raw("]}")
        }
        out.raw("]}}")
        return out.bytes
    }

    private static func reply(_ out: inout JSONWriter, _ id: Int, author: Int) {
        out.raw(#"{"__typename":"Comment","id":""#); out.int(id)
        out.raw(#"","body":"#); out.string("Reply \(id).")
        out.raw(#","author":"#); user(&out, author)
        out.raw("}")
    }

    private static func user(_ out: inout JSONWriter, _ id: Int) {
        out.raw(#"{"__typename":"User","id":""#); out.int(id + 1)
        out.raw(#"","name":"#); out.string("User \(id + 1)")
        out.raw(#","bio":"#); out.string("Writes about things \(id % 13).")
        out.raw("}")
    }

    /// Records JSON for `normcache_put`: `count` records `<group>:<n>` of one group,
    /// numbered from `first`, each a small object of four fields; `revision` is added to
    /// each record's value, so that a rewrite changes it.
    static func groupRecords(group: String, first: Int, count: Int, revision: Int = 0) -> [UInt8] {
        var out = JSONWriter()
        out.raw("{")
        for number in first..<(first + count) {
            if number > first { out.raw(",") }
            out.string("\(group):\(paddedNumber(number))")
            out.raw(#":{"name":"#); out.string("Item \(number)")
            out.raw(#","value":"#); out.int(number + revision)
            out.raw(#","active":"#); out.raw(number % 2 == 0 ? "true" : "false")
            out.raw(#","owner":{"$reference":"#); out.string("User:\(number % 1000)"); out.raw("}}")
        }
        out.raw("}")
        return out.bytes
    }

    /// The objects of a generated response (its strings hold no braces).
    static func objectCount(_ response: [UInt8]) -> Int {
        response.reduce(0) { $0 + ($1 == UInt8(ascii: "{") ? 1 : 0) }
    }

    /// `number` with leading zeros to seven digits, so keys sort in number order.
    static func paddedNumber(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: Swift.max(0, 7 - digits.count)) + digits
    }
}

/// Appends JSON text to a byte buffer.
struct JSONWriter {
    /// The text so far.
    private(set) var bytes: [UInt8] = []

    /// Appends `text` as is.
    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Appends an integer.
    mutating func int(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

    /// Appends a string literal (the harness's strings need no escapes).
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\""))
    }
}

/// SplitMix64: a small deterministic generator, the same on every platform.
struct SplitMix {
    private var state: UInt64

    /// A generator started at `seed`.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
