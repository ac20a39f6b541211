#if NORMCACHE_FAULT_INJECTION
import TestSupport
import Testing
@testable import NormCache

/// What the storage layer does when LMDB fails: a full map grows and the write lands, a
/// map another process resized is adopted and the call run again, a full reader table is
/// cleared of dead readers once, and a failed commit or put leaves nothing written. The
/// failures are injected with `StorageFaults` (debug builds).
@Suite struct StorageFaultTests {
    static let batch = #"{"A:1": {"x": 2}, "B:1": {"y": "new"}}"#

    /// A cache holding `A:1` {"x": 1}.
    static func cacheWithOneRecord() throws -> TestCache {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"x": 1}}"#)
        return test
    }

    /// Checks that the cache holds only what `cacheWithOneRecord` put.
    static func expectUnchanged(_ test: TestCache) throws {
        #expect(try test.cache.record("A:1") == #"{"x":1}"#)
        #expect(try test.cache.record("B:1") == nil)
        #expect(try test.cache.keys(withPrefix: "") == ["A:1"])
    }

    /// Checks that `batch` landed whole.
    static func expectWritten(_ test: TestCache) throws {
        #expect(try test.cache.record("A:1") == #"{"x":2}"#)
        #expect(try test.cache.record("B:1") == #"{"y":"new"}"#)
    }

    @Test(arguments: [StorageFaults.Point.put, .commit])
    func aFullMapGrowsAndTheWriteLands(at point: StorageFaults.Point) throws {
        let test = try Self.cacheWithOneRecord()
        let before = try test.cache.stats().mapSize
        var changes = ChangedFields()
        let outcome = StorageFaults.inject(.mapFull, at: point) { () throws(NormCacheError) in
            changes = try test.cache.put(json: Self.batch)
        }
        #expect(outcome.injected == 1)
        #expect(outcome.error == nil)
        #expect(changes == ["A:1.x", "B:1.y"])
        #expect(try test.cache.stats().mapSize == 2 * before)
        try Self.expectWritten(test)
    }

    @Test func aMapResizedByAnotherProcessIsAdoptedAndTheCallRunAgain() throws {
        let test = try Self.cacheWithOneRecord()
        var read: String?
        let reading = StorageFaults.inject(.mapResized, at: .beginRead, count: 3) { () throws(NormCacheError) in
            read = try test.cache.record("A:1")
        }
        #expect(reading.injected == 3)
        #expect(reading.error == nil)
        #expect(read == #"{"x":1}"#)
        let writing = StorageFaults.inject(.mapResized, at: .beginWrite, count: 3) { () throws(NormCacheError) in
            _ = try test.cache.put(json: Self.batch)
        }
        #expect(writing.injected == 3)
        #expect(writing.error == nil)
        try Self.expectWritten(test)
    }

    /// An open whose first transaction finds the map grown by another process since the
    /// environment read its size (a busy writer elsewhere; `normcache copy` met it in CI)
    /// adopts the size and opens, read-only or not; one that keeps finding it so is refused
    /// as a read is.
    @Test func anOpenThatFindsTheMapResizedAdoptsItAndOpens() throws {
        let test = try Self.cacheWithOneRecord()
        test.cache.close()
        for readOnly in [false, true] {
            var options = CacheOptions()
            options.readOnly = readOnly
            var reopened: NormalizedCache?
            let opening = StorageFaults.inject(.mapResized, at: .beginRead, count: 3) { () throws(NormCacheError) in
                reopened = try NormalizedCache(path: test.path, options: options)
            }
            #expect(opening.injected == 3)
            #expect(opening.error == nil)
            #expect(try reopened?.record("A:1") == #"{"x":1}"#)
            reopened?.close()
        }
        let changing = NormCacheError(.notACache, "'\(test.path)' is damaged: its map size keeps changing")
        let refused = StorageFaults.inject(.mapResized, at: .beginRead, count: 100) { () throws(NormCacheError) in
            _ = try NormalizedCache(path: test.path)
        }
        #expect(refused.injected == 9)
        #expect(refused.error == changing)
        test.cache = try test.reopen()
        try Self.expectUnchanged(test)
    }

    @Test func aMapSizeThatKeepsChangingIsRefusedAfterNineAttempts() throws {
        let test = try Self.cacheWithOneRecord()
        let changing = NormCacheError(.notACache, "'\(test.path)' is damaged: its map size keeps changing")
        let reading = StorageFaults.inject(.mapResized, at: .beginRead, count: 100) { () throws(NormCacheError) in
            _ = try test.cache.record("A:1")
        }
        #expect(reading.injected == 9)
        #expect(reading.error == changing)
        let writing = StorageFaults.inject(.mapResized, at: .beginWrite, count: 100) { () throws(NormCacheError) in
            _ = try test.cache.put(json: Self.batch)
        }
        #expect(writing.injected == 9)
        #expect(writing.error == changing)
        try Self.expectUnchanged(test)
    }

    @Test func aFullReaderTableIsClearedOfDeadReadersAndTheBeginTriedOnce() throws {
        let test = try Self.cacheWithOneRecord()
        var read: String?
        let once = StorageFaults.inject(.readersFull, at: .beginRead) { () throws(NormCacheError) in
            read = try test.cache.record("A:1")
        }
        #expect(once.injected == 1)
        #expect(once.error == nil)
        #expect(read == #"{"x":1}"#)
        let twice = StorageFaults.inject(.readersFull, at: .beginRead, count: 2) { () throws(NormCacheError) in
            _ = try test.cache.record("A:1")
        }
        #expect(twice.injected == 2)
        #expect(twice.error == NormCacheError(.storage, "mdb_txn_begin on '\(test.path)' failed: all reader slots are in use (raise max_readers): MDB_READERS_FULL: Environment maxreaders limit reached"))
    }

    @Test func aCommitThatFailsWithEIOWritesNothing() throws {
        let test = try Self.cacheWithOneRecord()
        let failed = NormCacheError(.storage, "mdb_txn_commit on '\(test.path)' failed: Input/output error")
        let putting = StorageFaults.inject(.inputOutput, at: .commit) { () throws(NormCacheError) in
            _ = try test.cache.put(json: Self.batch)
        }
        #expect(putting.error == failed)
        try Self.expectUnchanged(test)
        let removing = StorageFaults.inject(.inputOutput, at: .commit) { () throws(NormCacheError) in
            _ = try test.cache.remove("A:1")
        }
        #expect(removing.error == failed)
        try Self.expectUnchanged(test)
        // The writer lock went with the failed transaction: the next write lands.
        _ = try test.cache.put(json: Self.batch)
        try Self.expectWritten(test)
    }

    @Test func aFullDiskOrMemoryDuringAPutWritesNothing() throws {
        let test = try Self.cacheWithOneRecord()
        let full = StorageFaults.inject(.diskFull, at: .put) { () throws(NormCacheError) in
            _ = try test.cache.put(json: Self.batch)
        }
        #expect(full.injected == 1)
        #expect(full.error == NormCacheError(.storage, "mdb_cursor_put on '\(test.path)' failed: the disk is full"))
        try Self.expectUnchanged(test)
        let memory = StorageFaults.inject(.outOfMemory, at: .put) { () throws(NormCacheError) in
            _ = try test.cache.put(json: Self.batch)
        }
        #expect(memory.injected == 1)
        #expect(memory.error == NormCacheError(.outOfMemory, "out of memory: mdb_cursor_put on '\(test.path)' failed: Cannot allocate memory"))
        try Self.expectUnchanged(test)
    }
}
#endif
