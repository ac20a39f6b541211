import Glibc
import TestSupport
import Testing
@testable import NormCache

/// The commit log in the file: exact changes per kind of commit, no entry for a commit
/// that changed nothing, the bounds (a reader far behind is told the log is incomplete; a
/// commit within them leaves the meta database unwritten), a read-only handle, waiting
/// for a commit, and watchers woken by many threads' writes.
@Suite struct CommitLogTests {
    static var fast: CacheOptions {
        var options = CacheOptions()
        options.durability = .fast
        return options
    }

    static var readOnly: CacheOptions {
        var options = CacheOptions()
        options.readOnly = true
        return options
    }

    @Test func eachKindOfChangeIsLoggedExactly() throws {
        let test = try TestCache()
        let cache = test.cache
        let start = try cache.lastCommit()
        _ = try cache.put(json: #"{"Pet:1": {"name": "Rex", "age": 3}, "Pet:2": {"name": "Tom"}}"#)
        _ = try cache.put(json: #"{"Pet:1": {"age": 4, "name": "Rex"}}"#)
        #expect(try cache.removeField("name", of: "Pet:2"))
        #expect(try cache.invalidate("Pet:1", field: "age") == 1)
        #expect(try cache.putDocument("GET /a", json: "[1]"))
        _ = try cache.remove("Pet:1")
        _ = try cache.removeAll(withPrefix: "GET ")
        _ = try cache.put(json: #"{"Pet:3": {"name": "Kit"}}"#)
        try cache.clear()
        // Clearing an empty cache changes nothing: no commit.
        try cache.clear()
        #expect(try cache.changes(since: start) == CommitChanges(through: start + 9, complete: true, commits: [
            LoggedCommit(id: start + 1, records: ["Pet:1", "Pet:2"]),
            LoggedCommit(id: start + 2, fields: ["Pet:1.age"]),
            LoggedCommit(id: start + 3, records: ["Pet:2"]),
            LoggedCommit(id: start + 4, fields: ["Pet:1.age"]),
            LoggedCommit(id: start + 5, records: ["GET /a"]),
            LoggedCommit(id: start + 6, records: ["Pet:1"]),
            LoggedCommit(id: start + 7, prefixes: ["GET "]),
            LoggedCommit(id: start + 8, records: ["Pet:3"]),
            LoggedCommit(id: start + 9, all: true),
        ]))
        #expect(try cache.changes(since: start + 9) == CommitChanges(through: start + 9, complete: true, commits: []))
    }

    @Test func aReaderBehindTheLogIsToldItIsIncomplete() throws {
        let test = try TestCache(options: Self.fast)
        let start = try test.cache.lastCommit()
        for round in 1...StoreTransaction.maximumLogEntries {
            _ = try test.cache.put(json: #"{"Counter:1": {"n": \#(round)}}"#)
        }
        #expect(try test.cache.changes(since: start).commits.count == 1024)
        #expect(try test.cache.changes(since: start).complete)
        // The commit that takes the log past its bound trims it to 7/8 at once.
        _ = try test.cache.put(json: #"{"Counter:1": {"n": 0}}"#)
        let changes = try test.cache.changes(since: start)
        #expect(!changes.complete)
        #expect(changes.commits.count == 896)
        #expect(changes.commits.first?.id == start + 130)
        #expect(changes.commits.last?.id == start + 1025)
        #expect(try test.cache.changes(since: start + 129).complete)
        #expect(try !test.cache.changes(since: start + 128).complete)
        // The commits after a trim keep every entry until the bound is passed again.
        _ = try test.cache.put(json: #"{"Counter:1": {"n": 1}}"#)
        #expect(try test.cache.changes(since: start + 129).commits.count == 897)
    }

    /// A commit within the log's bounds writes its records and its log entry, and not the
    /// meta database: its leaf page stays where it was in the map (a page written is
    /// copied to another), until a commit passes a bound and moves the floor.
    @Test func aCommitWithinTheBoundsLeavesTheMetaDatabaseUnwritten() throws {
        let test = try TestCache(options: Self.fast)
        let store = test.cache.store
        func floor() throws -> (address: UnsafeRawPointer?, value: UInt64) {
            try store.read { (txn) throws(NormCacheError) in (try txn.metaValue("log_floor")?.baseAddress, try txn.logFloor()) }
        }
        let start = try test.cache.lastCommit()
        for round in 1...StoreTransaction.maximumLogEntries + 1 {
            _ = try test.cache.put(json: #"{"Counter:1": {"n": \#(round)}}"#)
        }
        let trimmed = try floor()
        #expect(trimmed.address != nil && trimmed.value == start + 129)
        for round in 1...100 {
            _ = try test.cache.put(json: #"{"Counter:1": {"n": -\#(round)}, "Other:\#(round)": {"m": 1}}"#)
        }
        let within = try floor()
        #expect(within.address == trimmed.address && within.value == trimmed.value)
        for round in 1...40 {
            _ = try test.cache.put(json: #"{"Counter:1": {"n": \#(round)}}"#)
        }
        let moved = try floor()
        #expect(moved.address != trimmed.address && moved.value == start + 129 + 129)
    }

    @Test func theLogKeepsAtMostItsBytesOfPages() throws {
        let test = try TestCache(options: Self.fast)
        // 2,500 records under keys of 400 bytes: each commit that changes all their `n`
        // fields logs 1 MB of field keys, in 248 overflow pages of its own; the log's one
        // leaf page holds the entries' keys.
        let keys = (0..<2_500).map { "Blob:" + String(repeating: "k", count: 390) + "\($0 + 10_000)" }
        func putAll(_ n: Int) throws {
            _ = try test.cache.put(json: "{" + keys.map { #""\#($0)": {"n": \#(n)}"# }.joined(separator: ",") + "}")
        }
        try putAll(0)
        let start = try test.cache.lastCommit()
        // The records' creation logged 246 pages, each round logs 248: 15 rounds fit in
        // 16 MiB (4,096 pages); the 16th passes the bound, and the log keeps the 14
        // newest rounds (3,473 pages), which fit in 14 MiB (3,584); three rounds on, it
        // passes it again.
        let keptRounds = [16: 14, 17: 15, 18: 16, 19: 14, 20: 15]
        for round in 1...20 {
            try putAll(round)
            let kept = keptRounds[round] ?? round
            let creationPages = round <= 15 ? 246 : 0
            #expect(try test.cache.stats().logBytes == (creationPages + kept * 248 + 1) * 4096)
            let changes = try test.cache.changes(since: start)
            #expect(changes.complete == (round <= 15))
            #expect(changes.commits.map(\.id) == Array((start + UInt64(round - kept + 1))...(start + UInt64(round))))
        }
    }

    @Test func aWatcherBehindTheLogReadsAgain() throws {
        let test = try TestCache(options: Self.fast)
        let query = try test.cache.prepare("{ hero { name } }")
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"hero": {"$reference": "Droid:2001"}}, "Droid:2001": {"name": "R2-D2"}}"#)
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, seen.record)
        defer { watcher.cancel() }
        // Commits the watchers have not heard of (as another process's would be), more than the log keeps.
        let store = test.cache.store
        for round in 0...StoreTransaction.maximumLogEntries {
            try store.write { (txn) throws(NormCacheError) in
                try Array("Counter:1".utf8).withBytes { (key) throws(NormCacheError) in
                    try Array([UInt8(truncatingIfNeeded: round)]).withBytes { (value) throws(NormCacheError) in
                        try txn.setRecord(key, value)
                        txn.changes?.noteRecord(key)
                    }
                }
            }
        }
        #expect(watcher.reads == 1)
        _ = try test.cache.dispatchChanges()
        #expect(watcher.reads == 1)
        _ = try test.cache.put(json: #"{"Droid:2001": {"name": "Artoo"}}"#)
        #expect(seen.data == [#"{"hero":{"name":"R2-D2"}}"#, #"{"hero":{"name":"Artoo"}}"#])
    }

    @Test func aCompactedCopyNumbersItsCommitsAfreshAndSoDoesItsLog() throws {
        let test = try TestCache(options: Self.fast)
        for round in 0..<20 { _ = try test.cache.put(json: #"{"Pet:1": {"n": \#(round)}}"#) }
        let destination = test.directory + "/copy.cache"
        try test.cache.copy(to: destination)
        defer {
            unlink(destination)
            unlink(destination + "-lock")
        }
        let copy = try NormalizedCache(path: destination)
        defer { copy.close() }
        let start = try copy.lastCommit()
        #expect(start < 20)
        _ = try copy.put(json: #"{"Pet:1": {"n": 100}}"#)
        #expect(try copy.changes(since: start) == CommitChanges(through: start + 1, complete: true, commits: [
            LoggedCommit(id: start + 1, fields: ["Pet:1.n"]),
        ]))
        #expect(try !copy.changes(since: start - 1).complete)
    }

    @Test func aReadOnlyHandleReadsTheLog() throws {
        let test = try TestCache()
        let start = try test.cache.lastCommit()
        _ = try test.cache.put(json: #"{"Pet:1": {"name": "Rex"}}"#)
        let reader = try test.reopen(options: Self.readOnly)
        defer { reader.close() }
        #expect(try reader.changes(since: start).commits == [LoggedCommit(id: start + 1, records: ["Pet:1"])])
        #expect(try reader.lastCommit() == start + 1)
    }

    @Test func waitingSeesAnotherThreadsCommitAndTimesOut() throws {
        let test = try TestCache(options: Self.fast)
        let cache = test.cache
        let start = try cache.lastCommit()
        #expect(try cache.waitForCommit(after: start, timeoutMilliseconds: 5) == nil)
        var thread = pthread_t()
        let box = Unmanaged.passRetained(cache)
        pthread_create(&thread, nil, { context in
            let cache = Unmanaged<NormalizedCache>.fromOpaque(context!).takeRetainedValue()
            usleep(20_000)
            _ = try? cache.put(json: #"{"Pet:1": {"name": "Rex"}}"#)
            return nil
        }, box.toOpaque())
        #expect(try cache.waitForCommit(after: start, timeoutMilliseconds: 10_000) == start + 1)
        pthread_join(thread, nil)
        #expect(throws: NormCacheError(.invalidArgument, "timeout -1 ms is negative")) {
            try cache.waitForCommit(after: start, timeoutMilliseconds: -1)
        }
    }

    @Test func watchersSeeTheLastWriteOfManyThreadsAndNoCallbackOverlaps() throws {
        let test = try TestCache(options: Self.fast)
        let cache = test.cache
        let query = try cache.prepare("{ counter { n } }")
        _ = try cache.put(json: #"{"QUERY_ROOT": {"counter": {"$reference": "Counter:1"}}, "Counter:1": {"n": -1}}"#)
        let overlap = OverlapCheck()
        let watcher = try cache.watch(query) { _ in overlap.enter() }
        defer { watcher.cancel() }
        var threads: [pthread_t] = []
        for writer in 0..<4 {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(WriterContext(cache: cache, writer: writer))
            pthread_create(&thread, nil, { raw in
                let context = Unmanaged<WriterContext>.fromOpaque(raw!).takeRetainedValue()
                for round in 0..<50 {
                    _ = try? context.cache.put(json: #"{"Counter:1": {"n": \#(context.writer * 1000 + round)}}"#)
                }
                return nil
            }, context.toOpaque())
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
        _ = try cache.put(json: #"{"Counter:1": {"n": 99999}}"#)
        #expect(try watcher.last?.get().data == Array(#"{"counter":{"n":99999}}"#.utf8))
        #expect(!overlap.overlapped)
    }
}

/// The cache and number of a writer thread.
final class WriterContext: @unchecked Sendable {
    let cache: NormalizedCache
    let writer: Int

    init(cache: NormalizedCache, writer: Int) {
        self.cache = cache
        self.writer = writer
    }
}

/// Notes whether two callbacks ever ran at once.
final class OverlapCheck: @unchecked Sendable {
    private let lock = Mutex()
    private var inside = false
    private(set) var overlapped = false

    func enter() {
        lock.withLock {
            if inside { overlapped = true }
            inside = true
        }
        usleep(100)
        lock.withLock { inside = false }
    }
}
