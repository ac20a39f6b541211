import Glibc

/// The records one read has found so far, by key: a normalized response refers to the
/// same records again and again (the author of every post), and a hit here spares a
/// B-tree search. Records point into the read transaction's memory map, so the cache
/// lives no longer than its transaction.
///
/// An open-addressing table of 16-byte slots that doubles up to `maximumSlots`; past
/// that, or when memory cannot be had, it stops taking records (lookups still answer),
/// so a read of millions of records holds a few megabytes at most. The keys are copied,
/// one after another, into a block of their own: over a large file, the references a
/// key was first read from lie anywhere in the map, and comparing a key there cost a
/// cache miss a lookup. A slot keeps 32 bits of its key's hash, so a probe of another
/// key rarely reads a key at all.
struct RecordCache: ~Copyable {
    private struct Slot {
        /// The low 32 bits of the key's hash (the slot's index is taken from them).
        var hash: UInt32
        /// Where the key's entry starts in `keys`, plus one; 0: the slot is empty.
        var entry: UInt32
        /// The first byte of the record.
        var record: UnsafeRawPointer?
    }

    /// The most slots the table grows to (4 MiB of slots).
    static let maximumSlots = 1 << 18
    /// The most bytes of keys kept.
    static let maximumKeyBytes = 16 << 20
    /// The slots of a new table.
    private static let firstSlots = 256
    /// The bytes of an entry of a typical key (`User:1234567`).
    private static let typicalEntry = 24

    private var table = HashSlots<Slot>()
    /// An entry a key: the record's length and the key's (4 bytes each), then the key.
    private var keys = ByteBuffer()

    init() {}

    /// The record found under `key` earlier in the read, if any.
    @inline(__always)
    func record(_ key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard !table.isEmpty, let base = keys.start else { return nil }
        let hash = UInt32(truncatingIfNeeded: KeyBytes.hash(key, seed: table.seed))
        let mask = table.mask
        var index = Int(hash) & mask
        while true {
            let slot = table[index]
            guard slot.entry != 0 else { return nil }
            if slot.hash == hash {
                let entry = base + Int(slot.entry &- 1)
                let keyCount = Int(entry.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
                if KeyBytes.equal(UnsafeRawBufferPointer(start: entry + 8, count: keyCount), key) {
                    let recordCount = Int(entry.loadUnaligned(as: UInt32.self))
                    return UnsafeRawBufferPointer(start: slot.record, count: recordCount)
                }
            }
            index = (index &+ 1) & mask
        }
    }

    /// Remembers `record` under `key` (which must not be in the table); the record must
    /// stay valid as long as the cache.
    mutating func insert(_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) {
        guard record.count <= UInt32.max, key.count <= Self.maximumKeyBytes,
              keys.count &+ 8 &+ key.count <= Self.maximumKeyBytes else { return }
        if table.isFull {
            guard table.count < Self.maximumSlots, grow() else { return }
        }
        let offset = keys.count
        guard let out = keys.reserve(8 &+ key.count) else { return }
        out.storeBytes(of: UInt32(truncatingIfNeeded: record.count), as: UInt32.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: key.count), toByteOffset: 4, as: UInt32.self)
        if let start = key.baseAddress { (out + 8).copyMemory(from: start, byteCount: key.count) }
        keys.advance(by: 8 &+ key.count)
        place(Slot(hash: UInt32(truncatingIfNeeded: KeyBytes.hash(key, seed: table.seed)),
                   entry: UInt32(truncatingIfNeeded: offset &+ 1), record: record.baseAddress))
        table.used += 1
    }

    private mutating func place(_ slot: Slot) {
        let mask = table.mask
        var index = Int(slot.hash) & mask
        while table[index].entry != 0 { index = (index &+ 1) & mask }
        table[index] = slot
    }

    /// Doubles the table; false when its slots cannot be had (the table stays as it was).
    private mutating func grow() -> Bool {
        let old: UnsafeMutableBufferPointer<Slot>?
        do { old = try table.double(minimum: Self.firstSlots, empty: Slot(hash: 0, entry: 0, record: nil)) } catch { return false }
        // Room for the keys of the first slots at once: a small read takes one block for them.
        if old == nil { keys = ByteBuffer(capacity: Self.firstSlots / 2 * Self.typicalEntry) }
        if let old {
            for slot in old where slot.entry != 0 { place(slot) }
            HashSlots.discard(old)
        }
        return true
    }
}
