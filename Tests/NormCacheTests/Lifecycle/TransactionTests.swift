import Glibc
import TestSupport
import Testing
@testable import NormCache

/// Transactions of several calls (`begin`, `commit`, `rollBack`, `transaction { }`):
/// atomic commits, reads of a transaction's own writes, calls that fail alone, misuse.
@Suite struct TransactionTests {
    @Test func writesOfATransactionCommitTogether() throws {
        let test = try TestCache()
        let cache = test.cache
        _ = try cache.put(json: #"{"Gone:1": {"v": 1}, "Keep:1": {"a": 1, "b": 2}}"#)
        let other = try test.reopen()
        defer { other.close() }
        let changed = try cache.transaction { (cache) throws(NormCacheError) -> ChangedFields in
            let changed = try cache.put(json: #"{"New:1": {"x": true}}"#)
            #expect(try cache.remove("Gone:1"))
            #expect(try cache.removeField("b", of: "Keep:1"))
            // Inside: its own writes; through another handle: the last commit.
            #expect(try cache.keys(withPrefix: "") == ["Keep:1", "New:1"])
            #expect(try cache.record("Keep:1") == #"{"a":1}"#)
            #expect(try other.keys(withPrefix: "") == ["Gone:1", "Keep:1"])
            return changed
        }
        #expect(changed == ["New:1.x"])
        #expect(try other.keys(withPrefix: "") == ["Keep:1", "New:1"])
    }

    @Test func anErrorRollsBackAndAFailingCallFailsAlone() throws {
        let test = try TestCache()
        let cache = test.cache
        #expect(throws: NormCacheError.self) {
            try cache.transaction { (cache) throws(NormCacheError) in
                _ = try cache.put(json: #"{"A:1": {"v": 1}}"#)
                throw NormCacheError(.callback, "stop")
            }
        }
        #expect(try cache.keys(withPrefix: "") == [])
        try cache.transaction { (cache) throws(NormCacheError) in
            _ = try cache.put(json: #"{"B:1": {"v": 1}}"#)
            do throws(NormCacheError) {
                _ = try cache.put(json: #"{"C:1": {"v": 1}, "D:1": {"v": }}"#)
                Issue.record("a put of bad JSON succeeded")
            } catch {
                #expect(error.code == .json)
            }
            _ = try cache.put(json: #"{"E:1": {"v": 1}}"#)
        }
        #expect(try cache.keys(withPrefix: "") == ["B:1", "E:1"])
    }

    @Test func misuseIsRefusedWithItsReason() throws {
        let test = try TestCache()
        let cache = test.cache
        do throws(NormCacheError) {
            try cache.commit()
            Issue.record("a commit without a transaction succeeded")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message == "no transaction to commit: none is open on the cache '\(test.path)' in this thread "
                + "(a transaction belongs to the thread that began it)")
        }
        try cache.begin()
        do throws(NormCacheError) {
            try cache.begin()
            Issue.record("a nested begin succeeded")
        } catch {
            #expect(error.message == "a transaction is already open on the cache '\(test.path)' in this thread; transactions do not nest")
        }
        try cache.rollBack()
        do throws(NormCacheError) {
            try cache.rollBack()
            Issue.record("a second rollback succeeded")
        } catch {
            #expect(error.message.hasPrefix("no transaction to roll back: "))
        }
    }

    @Test func closingInsideRollsBack() throws {
        let test = try TestCache()
        try test.cache.begin()
        _ = try test.cache.put(json: #"{"A:1": {"v": 1}}"#)
        #expect(test.cache.close())
        let reopened = try test.reopen()
        defer { reopened.close() }
        #expect(try reopened.keys(withPrefix: "") == [])
        _ = try reopened.put(json: #"{"B:1": {"v": 1}}"#)
        #expect(try reopened.keys(withPrefix: "") == ["B:1"])
    }

    @Test func theTransactionsThreadGoesOnWhileACloseOnAnotherThreadWaitsForIt() throws {
        let test = try TestCache()
        let cache = test.cache
        let observer = try test.reopen()
        defer { observer.close() }
        _ = try cache.put(json: #"{"Before:1": {"v": 1}}"#)
        let before = try cache.lastCommit()
        try cache.begin()
        let closer = WaitingThread()
        let closed = Signal()
        let thread = startThread {
            closer.start()
            #expect(cache.close())
            closed.post()
        }
        #expect(closer.sleeps())
        // Calls that took the handle's lock again and waited behind the close, which
        // waited for this transaction: both threads hung.
        #expect(try cache.lastCommit() == before)
        #expect(try cache.stats().records == 1)
        #expect(try cache.put(json: #"{"Inside:1": {"v": 2}}"#) == ["Inside:1.v"])
        #expect(try observer.record("Inside:1") == nil)
        #expect(!closed.wait(seconds: 0))
        try cache.commit()
        #expect(closed.wait(seconds: 10))
        pthread_join(thread, nil)
        #expect(try observer.record("Inside:1") == #"{"v":2}"#)
        #expect(throws: NormCacheError.self) { try cache.lastCommit() }
    }

    @Test func aCommitIsLoggedOnceAndWakesWatchersOnce() throws {
        let (test, query) = try WatcherTests().heroCache()
        let seen = Deliveries()
        let watcher = try test.cache.watch(query, variables: #"{"episode": "JEDI"}"#, seen.record)
        defer { watcher.cancel() }
        let before = try test.cache.lastCommit()
        try test.cache.transaction { (cache) throws(NormCacheError) in
            _ = try cache.put(json: #"{"Human:1000": {"name": "Luke"}}"#)
            #expect(try cache.remove("Starship:1") == false)
            _ = try cache.put(json: #"{"Human:1002": {"name": "Han"}}"#)
            #expect(seen.data.count == 1)
        }
        #expect(seen.data.count == 2)
        #expect(seen.data.last == #"{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","friends":[{"__typename":"Human","id":"1000","name":"Luke"},{"__typename":"Human","id":"1002","name":"Han"}]}}"#)
        let logged = try test.cache.changes(since: before)
        #expect(logged.commits.count == 1)
        #expect(logged.commits.first?.fields == ["Human:1000.name", "Human:1002.name"])
        // A rolled-back transaction, and a failed call's changes, reach neither.
        try test.cache.begin()
        _ = try test.cache.put(json: #"{"Human:1000": {"name": "L"}}"#)
        try test.cache.rollBack()
        try test.cache.transaction { (cache) throws(NormCacheError) in
            _ = try? cache.put(json: #"{"Human:1002": {"name": "H"}, "X:1": {"v": }}"#)
        }
        #expect(seen.data.count == 2)
        #expect(try test.cache.changes(since: before).commits.count == 1)
    }
}

/// A thread that notes its id in /proc when it starts, so that another can see it wait.
final class WaitingThread: @unchecked Sendable {
    private let started = Signal()
    private var id = ""

    /// Called on the thread: notes its id (from the link /proc/thread-self, "PID/task/TID").
    func start() {
        var link = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &link, link.count - 1)
        id = String(cString: Array(link[0..<max(count, 0)]) + [0]).split(separator: "/").last.map(String.init) ?? ""
        started.post()
    }

    /// Whether the thread has started and then slept for 50 ms on end (waiting on a
    /// lock) within 10 s.
    func sleeps() -> Bool {
        guard started.wait(seconds: 10) else { return false }
        var asleepSince: Double?
        let start = Self.now()
        while Self.now() - start < 10 {
            let now = Self.now()
            if state() != "S" {
                asleepSince = nil
            } else if let since = asleepSince {
                if now - since >= 0.05 { return true }
            } else {
                asleepSince = now
            }
            usleep(1000)
        }
        return false
    }

    /// The thread's state letter in /proc/self/task/TID/stat ("R", "S"...).
    private func state() -> String {
        guard let file = fopen("/proc/self/task/\(id)/stat", "r") else { return "" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 512)
        guard fgets(&line, Int32(line.count), file) != nil else { return "" }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return "" }
        return text[text.index(after: close)...].split(separator: " ").first.map(String.init) ?? ""
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
