import TestSupport
import Testing
@testable import NormCache

/// Per-handle metrics: each kind of read and write counted as `HandleMetrics` says,
/// another handle on the same file counting its own, watchers' reads left out.
@Suite struct HandleMetricsTests {
    @Test func readsAndWritesAreCountedByOutcome() throws {
        let now = Counter(start: 1_700_000_000)
        let test = try TestCache(clock: { now.value })
        let cache = test.cache
        try cache.configure(#"{"maxAges": {"Query.hero": 60}}"#)
        #expect(cache.metrics() == HandleMetrics(reads: 0, hits: 0, misses: 0, staleReads: 0, writes: 0, changedFields: 0))
        let query = try cache.prepare("{ hero { name } }")
        #expect(try cache.read(query).status == .miss)
        _ = try cache.put(json: #"{"QUERY_ROOT": {"hero": {"$reference": "Droid:2001"}}, "Droid:2001": {"name": "R2-D2", "id": "2001"}}"#)
        _ = try cache.put(json: #"{"Droid:2001": {"name": "Artoo", "id": "2001"}}"#)
        _ = try cache.put(json: #"{"Droid:2001": {"name": "Artoo"}}"#)
        #expect(try cache.read(query).status == .complete)
        now.value += 120
        #expect(try cache.read(query, options: ReadOptions(maxStale: 3600)).status == .stale)
        #expect(try cache.record("Droid:2001") != nil)
        #expect(try cache.record("Droid:9") == nil)
        #expect(try cache.remove("Droid:2001"))
        // Writes: three puts (1 + 2 fields created, then 1 changed, then none) and a remove.
        #expect(cache.metrics() == HandleMetrics(reads: 5, hits: 2, misses: 2, staleReads: 1, writes: 4, changedFields: 5))
        let json = String(decoding: cache.metrics().json, as: UTF8.self)
        #expect(json == #"{"reads":5,"hits":2,"misses":2,"stale_reads":1,"writes":4,"changed_fields":5}"#)
    }

    @Test func eachHandleCountsItsOwnAndWatchersAreLeftOut() throws {
        let test = try TestCache()
        let other = try test.reopen()
        defer { other.close() }
        let query = try test.cache.prepare("{ hero { name } }")
        let watcher = try test.cache.watch(query) { _ in }
        defer { watcher.cancel() }
        _ = try other.put(json: #"{"QUERY_ROOT": {"hero": {"$reference": "Droid:2001"}}, "Droid:2001": {"name": "R2-D2"}}"#)
        #expect(test.cache.metrics() == HandleMetrics(reads: 0, hits: 0, misses: 0, staleReads: 0, writes: 0, changedFields: 0))
        #expect(other.metrics() == HandleMetrics(reads: 0, hits: 0, misses: 0, staleReads: 0, writes: 1, changedFields: 2))
    }
}
