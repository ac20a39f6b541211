import Synchronization

/// Read transactions of one environment kept between reads: reset (`mdb_txn_reset`),
/// to be renewed (`mdb_txn_renew`) by the next read on any thread instead of begun
/// anew. A renew spares the begin's allocation and, under `MDB_NOTLS`, its search of
/// the reader table under the table's lock; each kept transaction holds its reader
/// slot meanwhile (no snapshot: it pins no pages), which counts against `max_readers`.
/// So at most `capacity` are kept, and none by an environment of fewer than
/// `minimumReaderSlots` slots, where two idle slots would be a large share; a read that
/// finds none kept begins one, and a read that ends when all places are full aborts its
/// own.
///
/// Each place is one atomic word, taken by exchange and filled by compare-exchange: no
/// lock, and a thread never waits for another. A thread tries the place of its
/// `ThreadOrdinal`'s parity first, so two threads reading at once mostly renew the
/// transaction each kept itself, not the other's (its `MDB_txn` and the reader slot
/// it names still in the thread's CPU cache), and the places lie on cache lines of
/// their own. The transactions are `MDB_txn` pointers; `LMDBEnvironment` resets, renews
/// and aborts them.
final class IdleReadTransactions: @unchecked Sendable {
    /// How many reset transactions are kept at most: one for each of two threads
    /// reading at once, of the 126 reader slots a file has by default.
    static var capacity: Int { 2 }
    /// The fewest reader slots (`max_readers`) of an environment that keeps any.
    static var minimumReaderSlots: UInt32 { 32 }

    private let first = Atomic<UInt>(0)
    /// Puts `second` 64 bytes past `first`, on another cache line.
    private let spacing: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0)
    private let second = Atomic<UInt>(0)

    /// A kept transaction, taken out of its place, or nil when none is kept.
    func take() -> OpaquePointer? {
        take(secondPlaceFirst: Self.callerPrefersSecondPlace)
    }

    /// Keeps `txn` (reset) in a free place; false when every place is taken, and the
    /// caller aborts it.
    func keep(_ txn: OpaquePointer) -> Bool {
        keep(txn, secondPlaceFirst: Self.callerPrefersSecondPlace)
    }

    /// `take()` for a thread that tries the second place first, or the first.
    func take(secondPlaceFirst: Bool) -> OpaquePointer? {
        if secondPlaceFirst {
            if let taken = Self.take(from: second) { return taken }
            return Self.take(from: first)
        }
        if let taken = Self.take(from: first) { return taken }
        return Self.take(from: second)
    }

    /// `keep(_:)` for a thread that tries the second place first, or the first.
    func keep(_ txn: OpaquePointer, secondPlaceFirst: Bool) -> Bool {
        let word = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(txn)))
        if secondPlaceFirst { return Self.keep(word, in: second) || Self.keep(word, in: first) }
        return Self.keep(word, in: first) || Self.keep(word, in: second)
    }

    /// Whether the calling thread tries the second place first: the threads of odd
    /// `ThreadOrdinal`.
    private static var callerPrefersSecondPlace: Bool { ThreadOrdinal.current & 1 == 1 }

    /// Every kept transaction, taken out: for the environment to abort before it closes
    /// or changes its map size.
    func takeAll() -> [OpaquePointer] {
        var all: [OpaquePointer] = []
        while let txn = take() { all.append(txn) }
        return all
    }

    /// Whether `word` went into `place`, which was free.
    @inline(__always)
    private static func keep(_ word: UInt, in place: borrowing Atomic<UInt>) -> Bool {
        place.compareExchange(expected: 0, desired: word, ordering: .releasing).exchanged
    }

    /// The transaction in `place`, taken out (an exchange only when the place looks full).
    @inline(__always)
    private static func take(from place: borrowing Atomic<UInt>) -> OpaquePointer? {
        guard place.load(ordering: .relaxed) != 0 else { return nil }
        return OpaquePointer(bitPattern: place.exchange(0, ordering: .acquiring))
    }
}
