import TestSupport
import Testing
@testable import NormCache

/// Read transactions kept between reads (`IdleReadTransactions`, `LMDBEnvironment.endRead`):
/// at most two places, each taken once; the reader slots a handle keeps, as stats show.
@Suite struct IdleReadTransactionsTests {
    @Test func twoPlacesEachTakenOnce() {
        // Made-up transaction pointers: the places hold pointers only, never calling
        // LMDB, so any distinct non-null values do.
        let transactions = [0x1000, 0x2000, 0x3000].map { OpaquePointer(bitPattern: $0)! }
        let idle = IdleReadTransactions()
        #expect(idle.take() == nil)
        #expect(idle.keep(transactions[0]))
        #expect(idle.keep(transactions[1]))
        #expect(!idle.keep(transactions[2]))
        let first = idle.take(), second = idle.take()
        #expect(Set([first, second].compactMap { $0.map { UInt(bitPattern: $0) } }) == Set(transactions[0...1].map { UInt(bitPattern: $0) }))
        #expect(idle.take() == nil)
        #expect(idle.keep(transactions[2]))
        #expect(idle.takeAll() == [transactions[2]])
        #expect(idle.takeAll() == [])
    }

    /// Two threads reading at once each renew the transaction they kept, whichever
    /// ended its read first: a thread tries the place of its `ThreadOrdinal`'s parity
    /// first, then the other.
    @Test func eachThreadTakesBackTheTransactionItKept() {
        let even = OpaquePointer(bitPattern: 0x1000)!, odd = OpaquePointer(bitPattern: 0x2000)!
        let idle = IdleReadTransactions()
        // The odd thread ends its read first; were the places tried in one order by
        // every thread, its transaction would take the first place and be the even
        // thread's next.
        #expect(idle.keep(odd, secondPlaceFirst: true))
        #expect(idle.keep(even, secondPlaceFirst: false))
        #expect(idle.take(secondPlaceFirst: false) == even)
        #expect(idle.take(secondPlaceFirst: true) == odd)
        // A thread whose place is empty takes from the other; one whose place is full
        // keeps in the other.
        #expect(idle.keep(odd, secondPlaceFirst: true))
        #expect(idle.take(secondPlaceFirst: false) == odd)
        #expect(idle.keep(even, secondPlaceFirst: false))
        #expect(idle.keep(odd, secondPlaceFirst: false))
        #expect(!idle.keep(OpaquePointer(bitPattern: 0x3000)!, secondPlaceFirst: true))
        #expect(idle.take(secondPlaceFirst: true) == odd)
        #expect(idle.take(secondPlaceFirst: true) == even)
        #expect(idle.take(secondPlaceFirst: false) == nil)
    }

    @Test func aHandleKeepsTheSlotOfItsLastReadWithoutASnapshot() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"x": 1}}"#)
        for _ in 0..<5 { #expect(try test.cache.record("A:1") == #"{"x":1}"#) }
        let stats = try test.cache.stats()
        #expect(stats.readers == 0)
        #expect(stats.readerSlots == 1)
        #expect(stats.oldestReaderLag == 0)
    }

    /// The kept slot holds no snapshot, so it pins no pages: the same reads and writes
    /// leave a file of the same size whether the handle keeps slots or not.
    @Test func aKeptSlotPinsNoPages() throws {
        var keepingNone = CacheOptions()
        keepingNone.maxReaders = IdleReadTransactions.minimumReaderSlots - 1
        var sizes: [Int] = []
        var kept: [Int] = []
        for options in [CacheOptions(), keepingNone] {
            let test = try TestCache(options: options)
            for round in 0..<200 {
                _ = try test.cache.put(json: #"{"A:\#(round % 7)": {"x": "\#(String(repeating: "v", count: 900 + round))"}}"#)
                _ = try test.cache.record("A:\(round % 7)")
            }
            let stats = try test.cache.stats()
            sizes.append(stats.bytesUsed)
            kept.append(stats.readerSlots)
        }
        #expect(kept == [1, 0])
        #expect(sizes[0] == sizes[1])
    }

    @Test func aFileOfFewReaderSlotsKeepsNone() throws {
        var options = CacheOptions()
        options.maxReaders = IdleReadTransactions.minimumReaderSlots - 1
        let test = try TestCache(options: options)
        _ = try test.cache.put(json: #"{"A:1": {"x": 1}}"#)
        #expect(try test.cache.record("A:1") == #"{"x":1}"#)
        let stats = try test.cache.stats()
        #expect(stats.readers == 0 && stats.readerSlots == 0 && stats.maxReaders == 31)
    }

    @Test func aClosedHandleGivesItsSlotsBack() throws {
        let test = try TestCache()
        let other = try test.reopen()
        _ = try test.cache.put(json: #"{"A:1": {"x": 1}}"#)
        #expect(try other.record("A:1") == #"{"x":1}"#)
        // One environment per file in a process: both handles share its kept slot.
        #expect(try test.cache.stats().readerSlots == 1)
        other.close()
        #expect(try test.cache.stats().readerSlots == 1)
        test.cache.close()
        let reopened = try test.reopen()
        defer { reopened.close() }
        // The environment closed with the last handle and aborted its kept transaction;
        // the new one has kept only the slot of its own reads.
        #expect(try reopened.stats().readerSlots == 1)
    }
}
