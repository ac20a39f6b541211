/// The mark set of garbage collection: 64-bit hashes of record keys in an
/// open-addressing table (linear probing, at most half full), each with three flags
/// kept in the low bits of its slot. Eight bytes a marked key, whatever its length.
///
/// Two keys with the same hash share one slot: the collector treats that as a possible
/// collision and never trusts the slot to delete anything (see `GarbageCollector`).
struct MarkSet: ~Copyable {
    /// Flag: the key's record was found and its fields visited.
    static let visited: UInt64 = 1
    /// Flag: the record keeps at least one field (a reference to it does not dangle).
    static let keepsFields: UInt64 = 2
    /// Flag: the sweep met a record with this hash.
    static let swept: UInt64 = 4
    private static let flagBits: UInt64 = 7

    private var slots: [UInt64]
    private var mask: Int
    /// The keys marked.
    private(set) var count = 0

    /// An empty set.
    init() {
        slots = Array(repeating: 0, count: 1 << 12)
        mask = slots.count - 1
    }

    /// The bytes the table takes.
    var bytes: Int { slots.count * 8 }

    /// Marks `hash`; false when it was marked already.
    mutating func insert(_ hash: UInt64) -> Bool {
        let stored = Self.stored(hash)
        var index = Int(truncatingIfNeeded: stored >> 3) & mask
        while slots[index] != 0 {
            if slots[index] & ~Self.flagBits == stored { return false }
            index = (index + 1) & mask
        }
        slots[index] = stored
        count += 1
        if count * 2 > slots.count { grow() }
        return true
    }

    /// The flags of `hash`, or nil when it is not marked.
    func flags(_ hash: UInt64) -> UInt64? {
        let stored = Self.stored(hash)
        var index = Int(truncatingIfNeeded: stored >> 3) & mask
        while slots[index] != 0 {
            if slots[index] & ~Self.flagBits == stored { return slots[index] & Self.flagBits }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Adds `flags` to the marked `hash`.
    mutating func add(_ flags: UInt64, to hash: UInt64) {
        let stored = Self.stored(hash)
        var index = Int(truncatingIfNeeded: stored >> 3) & mask
        while slots[index] != 0 {
            if slots[index] & ~Self.flagBits == stored {
                slots[index] |= flags
                return
            }
            index = (index + 1) & mask
        }
        internalCheck(false, "flags added to a hash that is not marked")
    }

    /// The slot value of a hash: its bits above the flags, never 0 (an empty slot).
    private static func stored(_ hash: UInt64) -> UInt64 {
        let high = hash & ~flagBits
        return high == 0 ? flagBits + 1 : high
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        for slot in old where slot != 0 {
            var index = Int(truncatingIfNeeded: slot >> 3) & mask
            while slots[index] != 0 { index = (index + 1) & mask }
            slots[index] = slot
        }
    }
}
