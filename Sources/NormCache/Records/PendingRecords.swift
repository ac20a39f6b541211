/// The records a `RecordBatch` has been given but not yet looked up in its index: the
/// fields of each, as one run, and a copy of its key. The batch looks a group of them up
/// at once, asking the CPU for the index slots, then the records and fields those slots
/// lead to, before it touches any of them: in a batch larger than the CPU's caches each
/// lookup is a chain of dependent cache misses, which a group takes side by side.
struct PendingRecords: ~Copyable {
    /// One record waiting for its lookup.
    struct Entry {
        /// The record key's hash in the batch's index.
        var hash: UInt32
        /// The key: `keys[keyStart ..< keyStart + keyCount]`.
        var keyStart: UInt32
        var keyCount: UInt32
        /// Its fields: `fields[first ..< first + count]`, ascending by key, keys unique.
        var first: UInt32
        var count: UInt32
        /// The record of the batch that the index slot holding this hash names, read
        /// ahead of the lookup (a hint only: -1 when none).
        var candidate: Int32
    }

    /// How many records a group holds: enough lookups in flight to hide a cache miss
    /// each, few enough that the group's fields stay in the CPU's caches.
    static let groupSize = 16

    /// The fields of the pending records, then of the run being built.
    private(set) var fields = PlainArray<RecordBatch.Field>()
    /// The pending records, in the order given.
    private(set) var entries = PlainArray<Entry>()
    /// The keys of the pending records (a record given again needs no lasting copy).
    private var keys = ByteBuffer()

    init() {}

    /// Whether the group is full: the batch looks it up.
    var isFull: Bool { entries.count >= Self.groupSize }

    /// Ends the run `fields[start...]` as the fields of the record `key`.
    @inline(__always)
    mutating func add(key: UnsafeRawBufferPointer, hash: UInt32, runFrom start: Int) throws(NormCacheError) {
        let keyStart = keys.count
        keys.append(key)
        try keys.check(while: "adding the keys of the records")
        try entries.reserve(1, while: "adding the records")
        entries.append(Entry(hash: hash, keyStart: UInt32(keyStart), keyCount: UInt32(key.count), first: UInt32(start),
                             count: UInt32(fields.count - start), candidate: -1))
    }

    /// The key of `entry`, valid until the next record is added.
    @inline(__always)
    func key(of entry: Entry) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: keys.start.map { $0 + Int(entry.keyStart) }, count: Int(entry.keyCount))
    }

    /// Appends a field to the run being built.
    @inline(__always)
    mutating func append(_ field: RecordBatch.Field) throws(NormCacheError) {
        try fields.reserve(1, while: "adding the fields of the records")
        fields.append(field)
    }

    /// The fields of `entry`, valid until the next field is appended.
    @inline(__always)
    func fields(of entry: Entry) -> UnsafeMutableBufferPointer<RecordBatch.Field> {
        fields.elements(Int(entry.first)..<Int(entry.first + entry.count))
    }

    /// Sorts the run `fields[start...]` by key (see `RecordBatch.sortRun`).
    mutating func sortRun(from start: Int) {
        RecordBatch.sortRun(&fields, from: start)
    }

    /// Notes the record the index names for entry `position`.
    mutating func setCandidate(_ candidate: Int32, at position: Int) {
        entries[position].candidate = candidate
    }

    /// Where the last pending record's fields end: a run in progress starts there.
    private var runsEnd: Int {
        entries.count == 0 ? 0 : Int(entries[entries.count - 1].first + entries[entries.count - 1].count)
    }

    /// Forgets every record, once the batch has them (no run may be in progress).
    mutating func removeAll() {
        internalCheck(fields.count == runsEnd, "pending records dropped with a run of \(fields.count - runsEnd) fields in progress")
        entries.truncate(to: 0)
        fields.truncate(to: 0)
        keys.removeAll()
    }
}
