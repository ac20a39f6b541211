import Glibc

/// The records one read has found so far, by key: a normalized response refers to the
/// same records again and again (the author of every post), and a hit here spares a
/// B-tree search. Keys and records point into the read transaction's memory map, so
/// the cache lives no longer than its transaction.
///
/// An open-addressing table that doubles up to `maximumSlots`; past that, or when
/// memory for more slots cannot be had, it stops taking records (lookups still answer),
/// so a read of millions of records holds a few megabytes at most.
struct RecordCache: ~Copyable {
    private struct Slot {
        var key: UnsafeRawPointer?
        var keyCount: Int
        var record: UnsafeRawBufferPointer
    }

    /// The most slots the table grows to (8 MiB of slots).
    static let maximumSlots = 1 << 18

    private var table = HashSlots<Slot>()

    init() {}

    /// The record found under `key` earlier in the read, if any.
    @inline(__always)
    func record(_ key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard !table.isEmpty else { return nil }
        let mask = table.mask
        var index = Int(truncatingIfNeeded: KeyBytes.hash(key, seed: table.seed)) & mask
        while let stored = table[index].key {
            if KeyBytes.equal(UnsafeRawBufferPointer(start: stored, count: table[index].keyCount), key) { return table[index].record }
            index = (index &+ 1) & mask
        }
        return nil
    }

    /// Remembers `record` under `key` (which must not be in the table); both must stay
    /// valid as long as the cache.
    mutating func insert(_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) {
        guard let keyStart = key.baseAddress else { return }
        if table.isFull {
            guard table.count < Self.maximumSlots, grow() else { return }
        }
        place(Slot(key: keyStart, keyCount: key.count, record: record))
        table.used += 1
    }

    private mutating func place(_ slot: Slot) {
        let mask = table.mask
        let key = UnsafeRawBufferPointer(start: slot.key, count: slot.keyCount)
        var index = Int(truncatingIfNeeded: KeyBytes.hash(key, seed: table.seed)) & mask
        while table[index].key != nil { index = (index &+ 1) & mask }
        table[index] = slot
    }

    /// Doubles the table; false when its slots cannot be had (the table stays as it was).
    private mutating func grow() -> Bool {
        let empty = Slot(key: nil, keyCount: 0, record: UnsafeRawBufferPointer(start: nil, count: 0))
        let old: UnsafeMutableBufferPointer<Slot>?
        do { old = try table.double(minimum: 256, empty: empty) } catch { return false }
        if let old {
            for slot in old where slot.key != nil { place(slot) }
            HashSlots.discard(old)
        }
        return true
    }
}
