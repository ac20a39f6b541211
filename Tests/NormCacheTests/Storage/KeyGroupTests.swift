import TestSupport
import Testing
@testable import NormCache

/// Prefix search, paging, removal by prefix, and keys longer than LMDB's 511 bytes.
@Suite struct KeyGroupTests {
    func fill(_ cache: NormalizedCache, _ keys: [String]) throws {
        let json = "{" + keys.map { "\"\($0)\": {\"v\": 1}" }.joined(separator: ",") + "}"
        _ = try cache.put(json: json)
    }

    @Test func searchListsOneGroupInByteOrder() throws {
        let test = try TestCache()
        try fill(test.cache, ["Pet:2", "Pets:1", "Pet:10", "Person:1", "Pet:1", "Pe", "Pet:", "Planet:1", "Pet:é", "Pet:Z"])
        #expect(try test.cache.keys(withPrefix: "Pet:") == ["Pet:", "Pet:1", "Pet:10", "Pet:2", "Pet:Z", "Pet:é"])
        #expect(try test.cache.keys(withPrefix: "Pets:") == ["Pets:1"])
        #expect(try test.cache.keys(withPrefix: "Cat:") == [])
        #expect(try test.cache.keys(withPrefix: "").count == 10)
        #expect(try test.cache.keys(withPrefix: "Pe") == ["Pe", "Person:1", "Pet:", "Pet:1", "Pet:10", "Pet:2", "Pet:Z", "Pet:é", "Pets:1"])
    }

    @Test func pagesFollowTheAfterKey() throws {
        let test = try TestCache()
        let pets = (0..<250).map { "Pet:" + String("00\($0)".suffix(3)) }
        try fill(test.cache, pets + ["Person:1", "Pets:1", "Planet:9"])
        var pages: [[String]] = []
        var after: String?
        while true {
            let page = try test.cache.keys(withPrefix: "Pet:", after: after, limit: 100)
            if page.isEmpty { break }
            pages.append(page)
            after = page.last
        }
        #expect(pages.map(\.count) == [100, 100, 50])
        #expect(pages.flatMap { $0 } == pets)
        #expect(try test.cache.keys(withPrefix: "Pet:", after: "Pet:1", limit: 2) == ["Pet:100", "Pet:101"])
        #expect(try test.cache.keys(withPrefix: "Pet:", after: "A", limit: 1) == ["Pet:000"])
        #expect(try test.cache.keys(withPrefix: "Pet:", after: "Pet:249") == [])
        #expect(try test.cache.keys(withPrefix: "Pet:", after: "Q") == [])
        #expect(throws: NormCacheError(.invalidArgument, "negative limit -1")) { try test.cache.keys(withPrefix: "Pet:", limit: -1) }
    }

    @Test func removeByPrefixDeletesExactlyTheGroup() throws {
        let test = try TestCache()
        try fill(test.cache, ["Pet:1", "Pet:2", "Pets:1", "Person:1", "Pe"])
        #expect(try test.cache.removeAll(withPrefix: "Pet:") == 2)
        #expect(try test.cache.keys(withPrefix: "") == ["Pe", "Person:1", "Pets:1"])
        #expect(try test.cache.removeAll(withPrefix: "Pet:") == 0)
        #expect(throws: NormCacheError(.invalidArgument, "empty prefix")) { try test.cache.removeAll(withPrefix: "") }
        try test.cache.clear()
        #expect(try test.cache.keys(withPrefix: "") == [])
        #expect(try test.cache.stats().records == 0)
    }

    @Test func removeOneRecord() throws {
        let test = try TestCache()
        try fill(test.cache, ["Pet:1", "Pet:2"])
        #expect(try test.cache.remove("Pet:1"))
        #expect(try !test.cache.remove("Pet:1"))
        #expect(try test.cache.record("Pet:1") == nil)
        #expect(try test.cache.record("Pet:2") == #"{"v":1}"#)
    }

    @Test func longKeysStayExact() throws {
        let test = try TestCache()
        let shared = "Droid:2001.friendsConnection(" + String(repeating: "a", count: 600)
        let long = ["\(shared)b)", "\(shared)a)", "\(shared)c)", String(repeating: "k", count: 10_000),
                    String(repeating: "Q", count: 503), String(repeating: "Q", count: 504)]
        for (index, key) in long.enumerated() {
            _ = try test.cache.put(json: "{\"\(key)\": {\"i\": \(index)}}")
        }
        for (index, key) in long.enumerated() {
            #expect(try test.cache.record(key) == "{\"i\":\(index)}")
        }
        #expect(try test.cache.record(shared + "d)") == nil)
        #expect(try test.cache.record(String(repeating: "k", count: 9_999)) == nil)
        #expect(try test.cache.keys(withPrefix: "Droid:") == ["\(shared)a)", "\(shared)b)", "\(shared)c)"])
        #expect(try test.cache.keys(withPrefix: shared + "b") == ["\(shared)b)"])
        #expect(try test.cache.keys(withPrefix: "Droid:", after: "\(shared)a)", limit: 1) == ["\(shared)b)"])
        #expect(try test.cache.keys(withPrefix: "Q") == [String(repeating: "Q", count: 503), String(repeating: "Q", count: 504)])
        #expect(try test.cache.put(json: "{\"\(shared)b)\": {\"i\": 9}}") == ["\(shared)b).i"])
        #expect(try test.cache.remove("\(shared)b)"))
        #expect(try !test.cache.remove("\(shared)b)"))
        #expect(try test.cache.removeAll(withPrefix: shared + "c") == 1)
        #expect(try test.cache.keys(withPrefix: "Droid:") == ["\(shared)a)"])
        #expect(try test.cache.stats().records == 4)
    }

    @Test func aMillionRecordsInOnePut() throws {
        let test = try TestCache()
        var json = "{"
        json.reserveCapacity(30_000_000)
        for id in 0..<1_000_000 {
            if id > 0 { json += "," }
            json += "\"G\(id % 10):\(id)\":{\"v\":\(id)}"
        }
        json += "}"
        #expect(try test.cache.put(json: json).count == 1_000_000)
        #expect(try test.cache.stats().records == 1_000_000)
        #expect(try test.cache.keys(withPrefix: "G3:", limit: 3) == ["G3:100003", "G3:100013", "G3:100023"])
        #expect(try test.cache.record("G7:999997") == #"{"v":999997}"#)
    }
}
