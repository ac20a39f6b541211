import TestSupport
import Testing
@testable import NormCache

/// `keyGroupStats`: every key group's records, bytes and write times, and how a key
/// names its group.
@Suite struct KeyGroupStatsTests {
    @Test func aKeyNamesItsGroup() {
        func group(_ key: String) -> String {
            var key = key
            return key.withUTF8 { String(decoding: KeyGroupStats.group(of: UnsafeRawBufferPointer($0)), as: UTF8.self) }
        }
        #expect(group("Pet:7") == "Pet:")
        #expect(group("Droid:2001.friends.0") == "Droid:")
        #expect(group("QUERY_ROOT") == "QUERY_ROOT")
        #expect(group("QUERY_ROOT.post(id:1)") == "QUERY_ROOT")
        #expect(group("GET /articles") == "GET /articles")
        #expect(group(":x") == ":")
    }

    @Test func groupsCountRecordsBytesAndTimes() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"Pet:1": {"name": "Rex"}, "Pet:2": {"name": "Tom"}, "QUERY_ROOT": {"pet": {"$reference": "Pet:1"}}}"#)
        let later = try test.reopen(clock: { 1_700_000_500 })
        defer { later.close() }
        _ = try later.put(json: #"{"Pet:2": {"age": 3}, "QUERY_ROOT.list.0": {"n": 1}, "A-b:1": {"n": 2}}"#)
        let groups = try test.cache.keyGroupStats()
        #expect(groups.map(\.group) == ["A-b:", "Pet:", "QUERY_ROOT"])
        #expect(groups.map(\.records) == [1, 2, 2])
        #expect(groups.map(\.oldestWrite) == [1_700_000_500, 1_700_000_000, 1_700_000_000])
        #expect(groups.map(\.newestWrite) == [1_700_000_500, 1_700_000_500, 1_700_000_500])
        var stored = 0
        try test.cache.store.read { (txn) throws(NormCacheError) in
            try txn.forEachRecord(withPrefix: UnsafeRawBufferPointer(start: nil, count: 0)) { key, value in stored += key.count + value.count }
        }
        #expect(groups.map(\.bytes).reduce(0, +) == stored)
        #expect(groups[0].bytes == "A-b:1".utf8.count + (try recordBytes("A-b:1", test.cache)))
    }

    @Test func anEmptyCacheHasNoGroups() throws {
        let test = try TestCache()
        #expect(try test.cache.keyGroupStats() == [])
    }

    private func recordBytes(_ key: String, _ cache: NormalizedCache) throws -> Int {
        try cache.store.read { (txn) throws(NormCacheError) in
            try key.withUTF8Bytes { (key) throws(NormCacheError) in try txn.record(key)?.count ?? 0 }
        }
    }
}
