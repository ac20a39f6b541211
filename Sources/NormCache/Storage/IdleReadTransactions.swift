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
/// lock, and a thread never waits for another. The transactions are `MDB_txn`
/// pointers; `LMDBEnvironment` resets, renews and aborts them.
final class IdleReadTransactions: @unchecked Sendable {
    /// How many reset transactions are kept at most: one for each of two threads
    /// reading at once, of the 126 reader slots a file has by default.
    static var capacity: Int { 2 }
    /// The fewest reader slots (`max_readers`) of an environment that keeps any.
    static var minimumReaderSlots: UInt32 { 32 }

    private let first = Atomic<UInt>(0)
    private let second = Atomic<UInt>(0)

    /// A kept transaction, taken out of its place, or nil when none is kept.
    func take() -> OpaquePointer? {
        if let taken = Self.take(from: first) { return taken }
        return Self.take(from: second)
    }

    /// Keeps `txn` (reset) in a free place; false when every place is taken, and the
    /// caller aborts it.
    func keep(_ txn: OpaquePointer) -> Bool {
        let word = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(txn)))
        if first.compareExchange(expected: 0, desired: word, ordering: .releasing).exchanged { return true }
        return second.compareExchange(expected: 0, desired: word, ordering: .releasing).exchanged
    }

    /// Every kept transaction, taken out: for the environment to abort before it closes
    /// or changes its map size.
    func takeAll() -> [OpaquePointer] {
        var all: [OpaquePointer] = []
        while let txn = take() { all.append(txn) }
        return all
    }

    /// The transaction in `place`, taken out (an exchange only when the place looks full).
    @inline(__always)
    private static func take(from place: borrowing Atomic<UInt>) -> OpaquePointer? {
        guard place.load(ordering: .relaxed) != 0 else { return nil }
        return OpaquePointer(bitPattern: place.exchange(0, ordering: .acquiring))
    }
}
