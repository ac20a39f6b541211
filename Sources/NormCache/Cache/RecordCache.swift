import CPrefetch
import Glibc

/// The records one read has found so far, by key: a normalized response refers to the
/// same records again and again (the author of every post), and a hit here spares a
/// B-tree search. Records point into the read transaction's memory map, so the cache
/// lives no longer than its transaction.
///
/// An open-addressing table of 32-byte slots that doubles up to `maximumSlots`; past
/// that, or when memory cannot be had, it stops taking records (lookups still answer),
/// so a read of millions of records holds at most 8 MiB of slots and `maximumKeyBytes`
/// of long keys. A slot holds 32 bits of its key's hash, the record's address and
/// length, and a key of up to `inlineKeyBytes` bytes itself (`User:1234567`): a hit on
/// such a key reads one cache line. Longer keys are copied, one after another, into a block of their own (over a
/// large file, the references a key was first read from lie anywhere in the map). The
/// hash spares most probes of other keys from comparing any bytes.
struct RecordCache: ~Copyable {
    private struct Slot {
        /// The low 32 bits of the key's hash (the slot's index is taken from them).
        var hash: UInt32
        /// The key's length plus one; 0: the slot is empty.
        var keyCountPlusOne: UInt32
        /// The first byte of the record.
        var record: UnsafeRawPointer?
        /// The record's length.
        var recordCount: UInt32
        /// A short key's first 4 bytes (zeros past its end); a long key's offset in `keys`.
        var head: UInt32
        /// A short key's bytes 4 to 11 (zeros past its end).
        var tail: UInt64
    }

    /// A short key's bytes as a slot holds them.
    private struct InlineKey {
        var head: UInt32
        var tail: UInt64

        /// `key`'s bytes, zeros past its end; `key` has at most `inlineKeyBytes` bytes.
        @inline(__always)
        init(_ key: UnsafeRawBufferPointer) {
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: key) }
            head = UInt32(truncatingIfNeeded: words.0)
            tail = words.0 >> 32 | words.1 << 32
        }

        /// Whether `slot` holds this key (of the slot's length).
        @inline(__always)
        func isHeld(in slot: Slot) -> Bool {
            head == slot.head && tail == slot.tail
        }
    }

    /// The longest key a slot holds itself.
    static let inlineKeyBytes = 12
    /// The most slots the table grows to (8 MiB of slots).
    static let maximumSlots = 1 << 18
    /// The most bytes of long keys kept.
    static let maximumKeyBytes = 16 << 20
    /// The slots of a new table.
    private static let firstSlots = 256
    /// The room first taken for long keys.
    private static let firstKeyBytes = 4096
    /// The slots from which the table counts as large (2 MiB of them): past the CPU's
    /// second-level cache, where reading ahead (`ReferenceReadahead`) gains more than
    /// it costs. With 1 MiB of slots (the 10,000 authors of 100,000 posts) a read took
    /// 3 % longer with it, with 8 MiB (100,000 authors of a million posts) 27 % less.
    static let largeSlots = 1 << 16

    private var table = HashSlots<Slot>()
    /// The long keys, one after another.
    private var keys = ByteBuffer()

    init() {}

    /// The hash of `key` for `record(_:hash:)` and `insert(_:_:hash:)`.
    @inline(__always)
    func hash(_ key: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(truncatingIfNeeded: KeyBytes.hash(key, seed: table.seed))
    }

    /// Whether the table has outgrown the CPU's nearer caches: a lookup then waits on
    /// memory for its slot (see `ReferenceReadahead`).
    var isLarge: Bool { table.count >= Self.largeSlots }

    /// Asks for the slot where a lookup of `hash` starts.
    @inline(__always)
    func prefetch(_ hash: UInt32) {
        guard !table.isEmpty else { return }
        normcache_prefetch(table.address(of: Int(hash) & table.mask))
    }

    /// The record found under `key` (whose `hash(_:)` is `hash`) earlier in the read, if any.
    @inline(__always)
    func record(_ key: UnsafeRawBufferPointer, hash: UInt32) -> UnsafeRawBufferPointer? {
        guard !table.isEmpty else { return nil }
        let mask = table.mask
        let keyCountPlusOne = UInt32(truncatingIfNeeded: key.count &+ 1)
        let isShort = key.count <= Self.inlineKeyBytes
        var index = Int(hash) & mask
        while true {
            let slot = table[index]
            guard slot.keyCountPlusOne != 0 else { return nil }
            if slot.hash == hash, slot.keyCountPlusOne == keyCountPlusOne {
                let matches = isShort ? InlineKey(key).isHeld(in: slot)
                    : KeyBytes.equal(UnsafeRawBufferPointer(start: keys.start.assumedPresent + Int(slot.head), count: key.count), key)
                if matches { return UnsafeRawBufferPointer(start: slot.record, count: Int(slot.recordCount)) }
            }
            index = (index &+ 1) & mask
        }
    }

    /// Remembers `record` under `key` (whose `hash(_:)` is `hash`; it must not be in the
    /// table); the record must stay valid as long as the cache.
    mutating func insert(_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer, hash: UInt32) {
        let isShort = key.count <= Self.inlineKeyBytes
        guard record.count <= UInt32.max, isShort || keys.count &+ key.count <= Self.maximumKeyBytes else { return }
        if table.isFull {
            guard table.count < Self.maximumSlots, grow() else { return }
        }
        var slot = Slot(hash: hash, keyCountPlusOne: UInt32(truncatingIfNeeded: key.count &+ 1), record: record.baseAddress,
                        recordCount: UInt32(truncatingIfNeeded: record.count), head: 0, tail: 0)
        if isShort {
            let inline = InlineKey(key)
            (slot.head, slot.tail) = (inline.head, inline.tail)
        } else {
            if keys.capacity == 0 { keys = ByteBuffer(capacity: Swift.max(Self.firstKeyBytes, key.count)) }
            let offset = keys.count
            guard let out = keys.reserve(key.count) else { return }
            if let start = key.baseAddress { out.copyMemory(from: start, byteCount: key.count) }
            keys.advance(by: key.count)
            slot.head = UInt32(truncatingIfNeeded: offset)
        }
        place(slot)
        table.used += 1
    }

    private mutating func place(_ slot: Slot) {
        let mask = table.mask
        var index = Int(slot.hash) & mask
        while table[index].keyCountPlusOne != 0 { index = (index &+ 1) & mask }
        table[index] = slot
    }

    /// Doubles the table; false when its slots cannot be had (the table stays as it was).
    private mutating func grow() -> Bool {
        let empty = Slot(hash: 0, keyCountPlusOne: 0, record: nil, recordCount: 0, head: 0, tail: 0)
        let old: UnsafeMutableBufferPointer<Slot>?
        do { old = try table.double(minimum: Self.firstSlots, empty: empty) } catch { return false }
        if let old {
            for slot in old where slot.keyCountPlusOne != 0 { place(slot) }
            HashSlots.discard(old)
        }
        return true
    }
}
