import Glibc
import TestSupport
import Testing
@testable import NormCache

/// The size limit: `trim` and `CacheOptions.maxBytes` evict whole records, least
/// recently written first (a record's age is its newest field's written-at time),
/// spare the roots, and report each eviction as a removal to the log and the watchers.
@Suite struct EvictionTests {
    /// A body of 20,000 bytes: each record takes its own overflow pages, so evicting it
    /// frees whole pages and the data shrinks by a known step.
    static let body = String(repeating: "x", count: 20_000)

    /// A clock the test moves.
    final class Clock: @unchecked Sendable {
        var now: UInt64 = 1_700_000_000
    }

    /// Puts `key` with a large body at time `at`.
    func putLarge(_ cache: NormalizedCache, _ clock: Clock, _ key: String, at time: UInt64) throws {
        clock.now = time
        _ = try cache.put(json: #"{"\#(key)": {"body": "\#(Self.body)"}}"#)
    }

    func keys(_ cache: NormalizedCache) throws -> [String] {
        try cache.keys(withPrefix: "")
    }

    @Test func trimEvictsTheLeastRecentlyWrittenRecordFirst() throws {
        let clock = Clock()
        let test = try TestCache(clock: { clock.now })
        try putLarge(test.cache, clock, "User:2", at: 100)
        try putLarge(test.cache, clock, "User:1", at: 200)
        try putLarge(test.cache, clock, "Post:1", at: 300)
        let before = try test.cache.stats().dataBytes
        let report = try test.cache.trim(toBytes: before - 1)
        #expect(report.records == 1)
        #expect(report.groups == [EvictionReport.Group(group: "User:", records: 1)])
        #expect(report.dataBytesBefore == before)
        #expect(report.dataBytesAfter == before - 5 * 4096)
        #expect(try keys(test.cache) == ["Post:1", "User:1"])
        #expect(try test.cache.stats().dataBytes == report.dataBytesAfter)
        #expect(try test.cache.trim(toBytes: report.dataBytesAfter).records == 0)
    }

    @Test func aRecordIsAsOldAsItsNewestField() throws {
        let clock = Clock()
        let test = try TestCache(clock: { clock.now })
        try putLarge(test.cache, clock, "User:1", at: 100)
        try putLarge(test.cache, clock, "User:2", at: 200)
        clock.now = 300
        _ = try test.cache.put(json: #"{"User:1": {"name": "Ada"}}"#)
        let report = try test.cache.trim(toBytes: try test.cache.stats().dataBytes - 1)
        #expect(report.groups == [EvictionReport.Group(group: "User:", records: 1)])
        #expect(try keys(test.cache) == ["User:1"])
    }

    @Test func theRootsAreNeverEvicted() throws {
        let clock = Clock()
        let test = try TestCache(clock: { clock.now })
        clock.now = 50
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"me": {"$reference": "User:1"}}, "MUTATION_ROOT": {"like": true}, "QUERY_ROOT.feed.0": {"n": 1}}"#)
        try putLarge(test.cache, clock, "User:1", at: 100)
        let report = try test.cache.trim(toBytes: 0)
        #expect(report.records == 2)
        #expect(report.groups == [EvictionReport.Group(group: "QUERY_ROOT", records: 1), EvictionReport.Group(group: "User:", records: 1)])
        #expect(try keys(test.cache) == ["MUTATION_ROOT", "QUERY_ROOT"])
        let json = String(decoding: report.json, as: UTF8.self)
        #expect(json == #"{"records":2,"bytes":\#(report.bytes),"data_bytes_before":\#(report.dataBytesBefore),"#
            + #""data_bytes_after":\#(report.dataBytesAfter),"groups":{"QUERY_ROOT":1,"User:":1}}"#)
    }

    @Test func aRetainedRecordIsNeverEvictedUntilReleased() throws {
        let clock = Clock()
        let test = try TestCache(clock: { clock.now })
        try putLarge(test.cache, clock, "Settings:me", at: 10)
        try putLarge(test.cache, clock, "User:1", at: 100)
        #expect(try test.cache.retain("Settings:me") == 1)
        #expect(try test.cache.trim(toBytes: 0).records == 1)
        #expect(try keys(test.cache) == ["Settings:me"])
        #expect(try test.cache.release("Settings:me") == 0)
        #expect(try test.cache.trim(toBytes: 0).records == 1)
        #expect(try keys(test.cache) == [])
    }

    @Test func aPlainJSONDocumentIsEvictedLikeAnyRecordAndThenMisses() throws {
        let clock = Clock()
        let test = try TestCache(clock: { clock.now })
        clock.now = 100
        _ = try test.cache.putDocument("GET https://api.example/feed", json: #"{"items": ["\#(Self.body)"]}"#)
        try putLarge(test.cache, clock, "User:1", at: 200)
        let report = try test.cache.trim(toBytes: try test.cache.stats().dataBytes - 1)
        #expect(report.groups == [EvictionReport.Group(group: "GET https:", records: 1)])
        #expect(try test.cache.document("GET https://api.example/feed").status == .miss)
        #expect(try keys(test.cache) == ["User:1"])
    }

    @Test func anEvictionIsLoggedAndWakesTheWatchersOfTheRecord() throws {
        let clock = Clock()
        let test = try TestCache(clock: { clock.now })
        clock.now = 100
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"me": {"$reference": "User:1"}}, "User:1": {"name": "Ada", "body": "\#(Self.body)"}}"#)
        try putLarge(test.cache, clock, "Post:1", at: 200)
        let query = try test.cache.prepare("{ me { name } }")
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, seen.record)
        defer { watcher.cancel() }
        #expect(seen.data == [#"{"me":{"name":"Ada"}}"#])
        let commit = try test.cache.lastCommit()
        let report = try test.cache.trim(toBytes: try test.cache.stats().dataBytes - 1)
        #expect(report.groups == [EvictionReport.Group(group: "User:", records: 1)])
        #expect(seen.results.count == 2)
        #expect(seen.results.last?.status == .miss)
        #expect(seen.results.last?.missing == [FieldReport(path: [.key("me")], reason: .absent, record: "User:1", field: nil)])
        let changes = try test.cache.changes(since: commit)
        #expect(changes.commits.map(\.records) == [["User:1"]])
        #expect(changes.commits.map(\.fields) == [[]])
    }

    @Test func aWriteOverMaxBytesEvictsDownToTheLowWaterMark() throws {
        let clock = Clock()
        var options = CacheOptions()
        options.maxBytes = 200_000
        options.lowWater = 0.5
        let test = try TestCache(options: options, clock: { clock.now })
        var written: [String] = []
        var evictions = 0
        for index in 0..<20 {
            let key = "Item:\(index)"
            let before = try test.cache.stats().records
            try putLarge(test.cache, clock, key, at: 1000 + UInt64(index))
            written.append(key)
            let stats = try test.cache.stats()
            #expect(stats.dataBytes <= 200_000)
            if stats.records < before + 1 {
                evictions += 1
                #expect(stats.dataBytes <= 100_000)
            }
        }
        // Each Item takes five overflow pages (20480 bytes): the writes of Item:9 and
        // Item:15 pass 200000 bytes and evict the oldest six to 94208 bytes.
        #expect(evictions == 2)
        #expect(try keys(test.cache) == (12..<20).map { "Item:\($0)" })
        #expect(try test.cache.stats().maxBytes == 200_000)
    }

    @Test func aWriteLargerThanMaxBytesIsRefusedAndWritesNothing() throws {
        let clock = Clock()
        var options = CacheOptions()
        options.maxBytes = 65_536
        let test = try TestCache(options: options, clock: { clock.now })
        try putLarge(test.cache, clock, "Small:1", at: 100)
        let huge = String(repeating: "y", count: 100_000)
        #expect {
            _ = try test.cache.put(json: #"{"Huge:1": {"body": "\#(huge)"}}"#)
        } throws: { error in
            guard let error = error as? NormCacheError, error.code == .storage else { return false }
            return error.message.hasPrefix("the write leaves ") && error.message.hasSuffix(
                "bytes of data in '\(test.path)', over its max_bytes of 65536, with every record it may evict evicted "
                    + "(the roots and the records it wrote stay); nothing was written")
        }
        #expect(try keys(test.cache) == ["Small:1"])
    }

    @Test func aHandleWithoutALimitEvictsNothing() throws {
        let clock = Clock()
        var options = CacheOptions()
        options.maxBytes = 65_536
        let test = try TestCache(clock: { clock.now })
        for index in 0..<5 { try putLarge(test.cache, clock, "Item:\(index)", at: 100 + UInt64(index)) }
        #expect(try test.cache.stats().dataBytes > 65_536)
        let limited = try test.reopen(options: options, clock: { clock.now })
        defer { limited.close() }
        #expect(try limited.stats().records == 5)
        clock.now = 200
        _ = try limited.put(json: #"{"Item:9": {"n": 1}}"#)
        // Each Item takes five overflow pages: evicting Item:0 to Item:3 brings the data
        // to 32768 bytes, under the low-water mark of 52428.
        #expect(try limited.stats().dataBytes == 32_768)
        #expect(try keys(test.cache) == ["Item:4", "Item:9"])
    }

    @Test func theHistogramStaysBoundedAndCutsAtWholeBuckets() {
        var histogram = AgeHistogram()
        for age: UInt64 in 0..<10_000 { histogram.add(age: age, bytes: 10) }
        // 10,000 ages in at most 4,096 buckets: each bucket is 4 seconds (40 bytes) wide.
        let one = histogram.cutoff(covering: 25, sparingFrom: nil)
        #expect(one?.includes(3) == true)
        #expect(one?.includes(4) == false)
        let two = histogram.cutoff(covering: 41, sparingFrom: nil)
        #expect(two?.includes(7) == true)
        #expect(two?.includes(8) == false)
        // Sparing from age 6 leaves its bucket (4-7) and every later one.
        let spared = histogram.cutoff(covering: 1_000, sparingFrom: 6)
        #expect(spared?.includes(3) == true)
        #expect(spared?.includes(4) == false)
        #expect(histogram.cutoff(covering: 1, sparingFrom: 2) == nil)
        #expect(AgeHistogram().cutoff(covering: 1, sparingFrom: nil) == nil)
    }

    @Test func aWriteTooLargeToLogKeyByKeyKeepsTheNewestSecond() throws {
        let clock = Clock()
        var options = CacheOptions()
        options.maxBytes = 16 << 20
        let test = try TestCache(options: options, clock: { clock.now })
        clock.now = 100
        let body = String(repeating: "o", count: 1_000_000)
        for index in 0..<10 { _ = try test.cache.put(json: #"{"Old:\#(index)": {"body": "\#(body)"}}"#) }
        let commit = try test.cache.lastCommit()
        // 40,000 records of 109-byte keys note more than ChangeSet.maximumBytes of changes:
        // the commit keeps no keys, and the records of its second (200) stand for its own.
        clock.now = 200
        let tail = String(repeating: "k", count: 100)
        let records = (0..<40_000).map { #""New:\#(tail)\#(10_000 + $0)": {"n": \#($0)}"# }.joined(separator: ",")
        _ = try "{\(records)}".withUTF8Bytes { (bytes) throws(NormCacheError) in try test.cache.put(json: bytes, reportingChanges: false) }
        #expect(try test.cache.changes(since: commit).commits.map(\.all) == [true])
        #expect(try test.cache.keys(withPrefix: "Old:") == [])
        #expect(try test.cache.stats().records == 40_000)
        #expect(try test.cache.stats().dataBytes <= 16 << 20)
    }

    @Test func theOptionsAreChecked() throws {
        for (json, message) in [
            (#"{"max_bytes": 0}"#, "option 'max_bytes' must be an integer number of bytes, at least 65536"),
            (#"{"max_bytes": -1}"#, "option 'max_bytes' must be an integer number of bytes, at least 65536"),
            (#"{"max_bytes": 99999999999999999999}"#, "option 'max_bytes' must be an integer number of bytes, at least 65536"),
            (#"{"max_bytes": 1e9}"#, "option 'max_bytes' must be an integer number of bytes, at least 65536"),
            (#"{"max_bytes": "1"}"#, "option 'max_bytes' must be an integer number of bytes, at least 65536"),
            (#"{"low_water": 0}"#, "option 'low_water' must be a number greater than 0 and at most 1"),
            (#"{"low_water": 1.5}"#, "option 'low_water' must be a number greater than 0 and at most 1"),
            (#"{"low_water": "0.5"}"#, "option 'low_water' must be a number greater than 0 and at most 1"),
        ] {
            #expect(throws: NormCacheError(.invalidArgument, message)) { try json.withUTF8Bytes { (bytes) throws(NormCacheError) in try CacheOptions(json: bytes) } }
        }
        let options = try #"{"max_bytes": 1048576, "low_water": 0.25}"#.withUTF8Bytes { (bytes) throws(NormCacheError) in try CacheOptions(json: bytes) }
        #expect(options.maxBytes == 1_048_576)
        #expect(options.lowWater == 0.25)
        var tooSmall = CacheOptions()
        tooSmall.maxBytes = 4096
        #expect(throws: NormCacheError(.invalidArgument, "max_bytes 4096 is below the minimum of 65536 bytes")) { try TestCache(options: tooSmall) }
        let test = try TestCache()
        #expect(throws: NormCacheError(.invalidArgument, "max_bytes -1 is negative")) { try test.cache.trim(toBytes: -1) }
    }
}
