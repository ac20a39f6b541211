import Glibc

/// The records one read has found so far, by key: a normalized response refers to the
/// same records again and again (the author of every post), and a hit here spares a
/// B-tree search. Keys and records point into the read transaction's memory map, so
/// the cache lives no longer than its transaction.
///
/// An open-addressing table that doubles up to `maximumSlots`; past that it stops
/// taking records (lookups still answer), so a read of millions of records holds a few
/// megabytes at most.
struct RecordCache: ~Copyable {
    private struct Slot {
        var key: UnsafeRawPointer?
        var keyCount: Int
        var record: UnsafeRawBufferPointer
    }

    /// The most slots the table grows to (8 MiB of slots).
    static let maximumSlots = 1 << 18

    private var slots: UnsafeMutablePointer<Slot>?
    private var mask = 0
    private var used = 0
    private let seed = KeyBytes.seed

    init() {}

    deinit { slots?.deallocate() }

    /// The record found under `key` earlier in the read, if any.
    @inline(__always)
    func record(_ key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let slots else { return nil }
        var index = Int(truncatingIfNeeded: KeyBytes.hash(key, seed: seed)) & mask
        while let stored = slots[index].key {
            if KeyBytes.equal(UnsafeRawBufferPointer(start: stored, count: slots[index].keyCount), key) { return slots[index].record }
            index = (index &+ 1) & mask
        }
        return nil
    }

    /// Remembers `record` under `key` (which must not be in the table); both must stay
    /// valid as long as the cache.
    mutating func insert(_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) {
        guard let keyStart = key.baseAddress else { return }
        if (used + 1) * 2 > mask + 1 {
            guard mask + 1 < Self.maximumSlots else { return }
            grow()
        }
        let slots = slots.unsafelyUnwrapped
        var index = Int(truncatingIfNeeded: KeyBytes.hash(key, seed: seed)) & mask
        while slots[index].key != nil { index = (index &+ 1) & mask }
        slots[index] = Slot(key: keyStart, keyCount: key.count, record: record)
        used += 1
    }

    private mutating func grow() {
        let old = slots, oldCount = slots == nil ? 0 : mask + 1
        let count = Swift.max(256, oldCount * 2)
        let grown = UnsafeMutablePointer<Slot>.allocate(capacity: count)
        grown.initialize(repeating: Slot(key: nil, keyCount: 0, record: UnsafeRawBufferPointer(start: nil, count: 0)), count: count)
        slots = grown
        mask = count - 1
        guard let old else { return }
        for index in 0..<oldCount {
            guard let key = old[index].key else { continue }
            var target = Int(truncatingIfNeeded: KeyBytes.hash(UnsafeRawBufferPointer(start: key, count: old[index].keyCount), seed: seed)) & mask
            while grown[target].key != nil { target = (target &+ 1) & mask }
            grown[target] = old[index]
        }
        old.deallocate()
    }
}
