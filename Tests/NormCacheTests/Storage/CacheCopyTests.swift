import Glibc
import TestSupport
import Testing
@testable import NormCache

/// `copy(to:)`: a compacted, consistent copy of a cache file through `RecordStore`
/// (LMDB's `mdb_env_copyfd2` with `MDB_CP_COMPACT`, into a file made `O_EXCL`).
@Suite struct CacheCopyTests {
    /// A path for a copy in the test's directory, removed with it.
    private func destination(_ test: TestCache, _ name: String = "copy.cache") -> String {
        test.directory + "/" + name
    }

    private func remove(_ path: String) {
        unlink(path)
        unlink(path + "-lock")
    }

    private func size(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : -1
    }

    @Test func aCopyHoldsTheSameRecords() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"Pet:1": {"name": "Rex", "owner": {"$reference": "User:1"}}, "User:1": {"name": "Ada"}}"#)
        let path = destination(test)
        defer { remove(path) }
        try test.cache.store.copy(to: path)
        let copy = try NormalizedCache(path: path)
        defer { copy.close() }
        #expect(try copy.keys(withPrefix: "") == ["Pet:1", "User:1"])
        #expect(try copy.record("Pet:1") == #"{"name":"Rex","owner":{"$reference":"User:1"}}"#)
        _ = try copy.put(json: #"{"Pet:2": {"name": "Tom"}}"#)
        #expect(try test.cache.record("Pet:2") == nil)
    }

    @Test func aReadOnlyHandleCopiesACompactedFile() throws {
        let test = try TestCache()
        let big = String(repeating: "x", count: 2000)
        _ = try test.cache.put(json: "{" + (0..<2000).map { #""R:\#($0)": {"v": "\#(big)"}"# }.joined(separator: ",") + "}")
        #expect(try test.cache.removeAll(withPrefix: "R:1") == 1111)
        var options = CacheOptions()
        options.readOnly = true
        let reader = try test.reopen(options: options)
        defer { reader.close() }
        let path = destination(test)
        defer { remove(path) }
        try reader.copy(to: path)
        #expect(size(path) < size(test.path))
        let copy = try NormalizedCache(path: path)
        defer { copy.close() }
        #expect(try copy.stats().records == 889)
    }

    @Test func anExistingDestinationIsRefused() throws {
        let test = try TestCache()
        let path = destination(test)
        defer { remove(path) }
        try test.cache.copy(to: path)
        let copied = size(path)
        #expect(throws: NormCacheError(.invalidArgument, "'\(path)' exists: a copy is written only to a new file")) { try test.cache.copy(to: path) }
        #expect(size(path) == copied)
        #expect(throws: NormCacheError(.invalidArgument, "empty destination path")) { try test.cache.copy(to: "") }
        test.cache.close()
        #expect(throws: NormCacheError(.invalidArgument, "the cache '\(test.path)' is closed")) {
            try test.cache.copy(to: destination(test, "other.cache"))
        }
    }

    #if NORMCACHE_FAULT_INJECTION
    @Test func aMapAnotherProcessGrewIsAdoptedAndTheCopyMadeAgain() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"Pet:1": {"name": "Rex"}}"#)
        let path = destination(test)
        defer { remove(path) }
        let resized = StorageFaults.inject(.mapResized, at: .copy, count: 2) { () throws(NormCacheError) in try test.cache.copy(to: path) }
        #expect(resized.injected == 2 && resized.error == nil)
        let copy = try NormalizedCache(path: path)
        defer { copy.close() }
        #expect(try copy.record("Pet:1") == #"{"name":"Rex"}"#)
    }

    @Test func aCopyFindingNoReaderSlotGivesUpTheSpareOnesAndTriesOnce() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"Pet:1": {"name": "Rex"}}"#)
        let path = destination(test)
        defer { remove(path) }
        let once = StorageFaults.inject(.readersFull, at: .copy) { () throws(NormCacheError) in try test.cache.copy(to: path) }
        #expect(once.injected == 1 && once.error == nil)
        let copy = try NormalizedCache(path: path)
        defer { copy.close() }
        #expect(try copy.record("Pet:1") == #"{"name":"Rex"}"#)
        let refused = destination(test, "refused.cache")
        let twice = StorageFaults.inject(.readersFull, at: .copy, count: 2) { () throws(NormCacheError) in try test.cache.copy(to: refused) }
        #expect(twice.injected == 2)
        #expect(twice.error == NormCacheError(.storage, "copying the cache to '\(refused)' on '\(test.path)' failed: all reader slots are in use (raise max_readers): MDB_READERS_FULL: Environment maxreaders limit reached (mdb_env_copyfd2)"))
        #expect(size(refused) == -1)
    }

    @Test func aFailedCopyLeavesNoFile() throws {
        let test = try TestCache()
        let path = destination(test)
        let full = StorageFaults.inject(.diskFull, at: .copy) { () throws(NormCacheError) in try test.cache.copy(to: path) }
        #expect(full.error?.code == .storage)
        let resizing = StorageFaults.inject(.mapResized, at: .copy, count: 100) { () throws(NormCacheError) in try test.cache.copy(to: path) }
        #expect(resizing.error == NormCacheError(.notACache, "'\(test.path)' is damaged: its map size keeps changing"))
        #expect(size(path) == -1)
    }
    #endif
}
