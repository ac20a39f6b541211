import CPrefetch

/// The records of a batch by key: open addressing over record indices, with 32 bits of
/// the key's hash kept beside each. Those bits choose the slot too, so the index grows
/// without reading a key again, and most probes compare no bytes.
struct RecordIndex: ~Copyable {
    private var table = HashSlots<(hash: UInt32, record: Int32)>()

    init() {}

    /// The hash of a record key in this index.
    @inline(__always)
    func hash(_ key: UnsafeRawBufferPointer) -> UInt32 {
        let hash = KeyBytes.hash(key, seed: table.seed)
        return UInt32(truncatingIfNeeded: hash ^ hash >> 32)
    }

    /// Asks for the slot where a lookup of `hash` starts: in a large batch the index is
    /// out of the CPU's caches (see `PendingRecords`).
    @inline(__always)
    func prefetch(_ hash: UInt32) {
        guard !table.isEmpty else { return }
        normcache_prefetch(table.address(of: Int(hash) & table.mask))
    }

    /// The record of the first slot on `hash`'s probe that holds the same hash bits, or
    /// -1: what a lookup of a key with this hash will most likely find, to read ahead.
    @inline(__always)
    func candidate(for hash: UInt32) -> Int32 {
        guard !table.isEmpty else { return -1 }
        let mask = table.mask
        var slot = Int(hash) & mask
        while table[slot].record >= 0 {
            if table[slot].hash == hash { return table[slot].record }
            slot = (slot &+ 1) & mask
        }
        return -1
    }

    /// The record whose key is `key`.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer, hash: UInt32, in keys: borrowing ByteBuffer,
              records: borrowing PlainArray<RecordBatch.Record>) -> Int? {
        guard !table.isEmpty else { return nil }
        let mask = table.mask
        var slot = Int(hash) & mask
        while table[slot].record >= 0 {
            if table[slot].hash == hash {
                let record = records[Int(table[slot].record)]
                let stored = UnsafeRawBufferPointer(start: keys.start.assumedPresent + Int(record.keyStart), count: Int(record.keyCount))
                if KeyBytes.equal(stored, key) { return Int(table[slot].record) }
            }
            slot = (slot &+ 1) & mask
        }
        return nil
    }

    /// Adds `record` under `hash` (its key must not be in the index); throws
    /// `.outOfMemory` when the index cannot grow.
    mutating func insert(hash: UInt32, record: Int) throws(NormCacheError) {
        if table.isFull { try grow() }
        place(hash: hash, record: Int32(record))
        table.used += 1
    }

    private mutating func place(hash: UInt32, record: Int32) {
        let mask = table.mask
        var slot = Int(hash) & mask
        while table[slot].record >= 0 { slot = (slot &+ 1) & mask }
        table[slot] = (hash, record)
    }

    /// Makes room for `count` records more without growing: a batch that knows how many
    /// records it will hold (at most) takes its slots once. Throws `.outOfMemory` when
    /// they cannot be had.
    mutating func reserve(_ count: Int) throws(NormCacheError) {
        let wanted = (table.used + count) * 2
        guard wanted > table.count else { return }
        try grow(minimum: 1 << (Int.bitWidth - (wanted - 1).leadingZeroBitCount))
    }

    private mutating func grow(minimum: Int = 64) throws(NormCacheError) {
        guard let old = try table.double(minimum: minimum, empty: (0, -1)) else { return }
        for slot in old where slot.record >= 0 {
            place(hash: slot.hash, record: slot.record)
        }
        HashSlots.discard(old)
    }
}
