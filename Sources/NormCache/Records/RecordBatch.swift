import CPrefetch
import Glibc

/// Records to write, with values in their binary form (`FieldValue`), built by the
/// normalizer or parsed from the records JSON notation
/// `{"Key": {"field": value, "ref": {"$reference": "Other:1"}}}`.
///
/// Everything lives in a few flat blocks: record keys and values in byte arenas, fields
/// and records in plain arrays, and an index from record key to record. Each record's
/// fields are one run of the field array, in ascending key order with keys unique, so
/// that a write merges it with the stored record in one pass. A record given again
/// merges as it comes: a later value wins, and a field keeps the place in the input of
/// its first appearance (its `order`, by which changed fields are reported). Past
/// `groupingThreshold` records, records are looked up by key a group at a time
/// (`PendingRecords`), so the batch holds them all only once `finish` is called, after
/// the last record.
///
/// Field keys are not copied: they point at bytes that outlive the batch's use (the
/// storage keys of the call's shapes, or the caller's JSON), or at copies the batch owns.
///
/// Every block grows as the data asks; when memory cannot be had, adding throws
/// `.outOfMemory` and the batch is not to be used further.
struct RecordBatch: ~Copyable {
    /// One field of a record.
    struct Field {
        /// The field key's bytes (see the type's notes on who owns them).
        var key: UnsafeRawPointer?
        var keyCount: UInt32
        /// The encoded value: `values[valueStart ..< valueStart + valueCount]`.
        var valueStart: UInt32
        var valueCount: UInt32
        /// The field's first appearance in the input, counted across records.
        var order: UInt32

        /// The key's bytes.
        @inline(__always)
        var keyBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: key, count: Int(keyCount)) }
    }

    /// One record.
    struct Record {
        /// The key: `keys[keyStart ..< keyStart + keyCount]`.
        var keyStart: UInt32
        var keyCount: UInt32
        /// Its fields: `fields[first ..< first + count]`, ascending by key, keys unique.
        var first: UInt32
        var count: UInt32
        /// Runs given since that `finish` merges in: an index into `laterRuns`, or -1.
        var later: Int32
    }

    private struct Run {
        var first: UInt32
        var count: UInt32
        var next: Int32
    }

    /// The records in order of first appearance.
    private(set) var records = PlainArray<Record>()
    /// The fields of every record (and runs no record uses any more).
    private(set) var fields = PlainArray<Field>()
    /// The encoded values.
    var values = ByteBuffer()
    /// The record keys.
    private(set) var keys = ByteBuffer()
    private var laterRuns = PlainArray<Run>()
    private var index = RecordIndex()
    /// The records given since the last group was looked up, and the run being built
    /// (while `grouping`).
    private var pending = PendingRecords()
    /// Whether records are looked up a group at a time: once the batch holds
    /// `groupingThreshold` records, its index, records and fields no longer stay in the
    /// CPU's caches, and each lookup waits on memory. Before, a record is looked up as it
    /// comes and its run built in place, at the end of `fields`, with no copy.
    private var grouping = false
    static let groupingThreshold = 32_768
    private var nextOrder: UInt32 = 0
    /// Field keys the batch copied (unescaped keys of JSON input).
    private var ownedKeys: [UnsafeMutableRawPointer] = []
    /// The bytes of the record keys, field keys and values added: what the write
    /// stores, about.
    private(set) var byteCount = 0
    /// How many objects of a keyed type the normalizer keyed by their path for want of
    /// their key fields (`Normalizer`); 0 for records given by key.
    var keyFallbacks = 0

    /// The most fields a record given again is merged with as it comes; past that its
    /// runs are merged once, by `finish` (no quadratic cost for a record given many
    /// times over with ever more fields).
    private static let eagerMergeLimit = 64

    /// An empty batch.
    init() {}

    deinit {
        for key in ownedKeys { free(key) }
    }

    // MARK: Adding records

    /// Makes room for `records` records and `fields` fields more (what a batch parsed
    /// from JSON knows it will hold at most), so that its blocks and index take their
    /// size once instead of doubling; throws `.outOfMemory` when it cannot be had.
    mutating func reserve(records count: Int, fields fieldCount: Int) throws(NormCacheError) {
        try records.reserve(count, while: "adding the records")
        try fields.reserve(fieldCount, while: "adding the fields of the records")
        try index.reserve(count)
    }

    /// The place of the next field: a record's run starts here.
    var runStart: Int { grouping ? pending.fields.count : fields.count }

    /// Takes `count` consecutive input positions for fields; returns the first.
    mutating func takeOrders(_ count: Int) -> UInt32 {
        let first = nextOrder
        nextOrder &+= UInt32(truncatingIfNeeded: count)
        return first
    }

    /// Appends a field of the run being built whose value is already in `values` (at
    /// `range`); `key` must outlive the batch's use.
    @inline(__always)
    mutating func appendField(key: UnsafeRawBufferPointer, values range: Range<Int>, order: UInt32) throws(NormCacheError) {
        guard values.count <= Int(UInt32.max) else {
            throw NormCacheError(.invalidArgument, "the records of one write take more than 4 GiB")
        }
        let field = Field(key: key.baseAddress, keyCount: UInt32(key.count), valueStart: UInt32(range.lowerBound),
                          valueCount: UInt32(range.count), order: order)
        if grouping {
            try pending.append(field)
        } else {
            try fields.reserve(1, while: "adding the fields of the records")
            fields.append(field)
        }
        byteCount &+= key.count &+ range.count &+ 8
    }

    /// Appends a field of the run being built with a copy of `value`; `key` must outlive
    /// the batch's use.
    @inline(__always)
    mutating func appendField(key: UnsafeRawBufferPointer, copying value: UnsafeRawBufferPointer, order: UInt32) throws(NormCacheError) {
        let start = values.count
        values.append(value)
        try appendField(key: key, values: start..<values.count, order: order)
    }

    /// Appends a field whose key the batch copies first (a key that does not outlive the call).
    mutating func appendField(copyingKey key: [UInt8], copying value: UnsafeRawBufferPointer, order: UInt32) throws(NormCacheError) {
        let copy = try key.withBytes { (key) throws(NormCacheError) in try ownedCopy(of: key) }
        try appendField(key: copy, copying: value, order: order)
    }

    /// A copy of `key` that the batch owns until it is released: a field key that does
    /// not outlive the call but names fields again and again is copied once and then
    /// given to `appendField(key:...)` for each of them.
    mutating func ownedCopy(of key: UnsafeRawBufferPointer) throws(NormCacheError) -> UnsafeRawBufferPointer {
        guard let copy = malloc(Swift.max(1, key.count)) else {
            throw .outOfMemory(allocating: key.count, while: "copying a field name of the records")
        }
        if let base = key.baseAddress { copy.copyMemory(from: base, byteCount: key.count) }
        ownedKeys.append(copy)
        return UnsafeRawBufferPointer(start: copy, count: key.count)
    }

    /// Ends the run that started at `start` as fields of the record `key` (which may
    /// have none). `sorted`: the run is in ascending key order with keys unique; else
    /// it is sorted here, and of a key given twice the later value wins. Throws
    /// `.outOfMemory` when the values of the run could not all be held.
    mutating func addRecord(key: UnsafeRawBufferPointer, runFrom start: Int, sorted: Bool) throws(NormCacheError) {
        try addRecord(key: key, hash: index.hash(key), runFrom: start, sorted: sorted)
    }

    /// The hash of `key` in the batch's index, its slot asked for: a caller that knows a
    /// record's key before it reads the record's fields (records JSON) passes the hash to
    /// `addRecord(key:hash:runFrom:sorted:)`, which then finds the slot in the CPU's caches.
    @inline(__always)
    func hashAskingForSlot(_ key: UnsafeRawBufferPointer) -> UInt32 {
        let hash = index.hash(key)
        index.prefetch(hash)
        return hash
    }

    /// `addRecord(key:runFrom:sorted:)` with the key's `hash` in the index already taken.
    mutating func addRecord(key: UnsafeRawBufferPointer, hash: UInt32, runFrom start: Int, sorted: Bool) throws(NormCacheError) {
        try values.check(while: "encoding the values of the records")
        if !sorted {
            if grouping { pending.sortRun(from: start) } else { Self.sortRun(&fields, from: start) }
        }
        if grouping {
            index.prefetch(hash)
            try pending.add(key: key, hash: hash, runFrom: start)
            if pending.isFull { try addPending() }
            return
        }
        let count = fields.count - start
        if let existing = index.find(key, hash: hash, in: keys, records: records) {
            try mergeRun(from: start, count: count, inPlace: true, into: existing)
            return
        }
        try appendRecord(keyStart: appendKey(key), keyCount: key.count, hash: hash, first: start, count: count)
        grouping = records.count >= Self.groupingThreshold
    }

    /// Appends a record key to the keys; returns where it starts.
    @inline(__always)
    private mutating func appendKey(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> Int {
        guard keys.count + key.count <= Int(UInt32.max) else {
            throw NormCacheError(.invalidArgument, "the record keys of one write take more than 4 GiB")
        }
        let keyStart = keys.count
        keys.append(key)
        try keys.check(while: "adding the keys of the records")
        return keyStart
    }

    /// Appends a record new to the batch: its key at `keyStart` in the keys, its fields
    /// at `first` in the fields.
    @inline(__always)
    private mutating func appendRecord(keyStart: Int, keyCount: Int, hash: UInt32, first: Int, count: Int) throws(NormCacheError) {
        try records.reserve(1, while: "adding the records")
        records.append(Record(keyStart: UInt32(keyStart), keyCount: UInt32(keyCount), first: UInt32(first),
                              count: UInt32(count), later: -1))
        try index.insert(hash: hash, record: records.count - 1)
        byteCount &+= keyCount &+ 16
    }

    /// Adds the pending records in the order given. Each lookup reads an index slot, the
    /// record it names, and that record's key and fields, each read depending on the one
    /// before; the group asks for each step's lines for all its records before it reads
    /// any of them (the slots were asked for as the records came).
    private mutating func addPending() throws(NormCacheError) {
        for position in 0..<pending.entries.count {
            let candidate = index.candidate(for: pending.entries[position].hash)
            pending.setCandidate(candidate, at: position)
            if candidate >= 0 { normcache_prefetch(records.address(of: Int(candidate))) }
        }
        for position in 0..<pending.entries.count where pending.entries[position].candidate >= 0 {
            let record = records[Int(pending.entries[position].candidate)]
            if let keys = keys.start { normcache_prefetch(keys + Int(record.keyStart)) }
            if record.count > 0 { normcache_prefetch(fields.address(of: Int(record.first))) }
        }
        for position in 0..<pending.entries.count {
            let entry = pending.entries[position]
            let key = pending.key(of: entry)
            if let existing = index.find(key, hash: entry.hash, in: keys, records: records) {
                try mergeRun(from: Int(entry.first), count: Int(entry.count), inPlace: false, into: existing)
            } else {
                try appendRecord(keyStart: appendKey(key), keyCount: key.count, hash: entry.hash,
                                 first: appendRun(pending.fields(of: entry)), count: Int(entry.count))
            }
        }
        pending.removeAll()
    }

    /// Appends `run` to the fields; returns where it starts.
    private mutating func appendRun(_ run: UnsafeMutableBufferPointer<Field>) throws(NormCacheError) -> Int {
        try fields.reserve(run.count, while: "adding the fields of the records")
        let first = fields.count
        fields.append(contentsOf: UnsafeBufferPointer(run))
        return first
    }

    /// Merges the run of `count` fields from `start` (`inPlace`: the last of `fields`, else
    /// in the pending fields) into the record `target`: at once while it is small, else at
    /// `finish`.
    private mutating func mergeRun(from start: Int, count: Int, inPlace: Bool, into target: Int) throws(NormCacheError) {
        var record = records[target]
        defer { records[target] = record }
        if record.later >= 0 || Int(record.count) + count > Self.eagerMergeLimit {
            try laterRuns.reserve(1, while: "adding the fields of a record given again")
            let first = inPlace ? start : try appendRun(pending.fields.elements(start..<start + count))
            laterRuns.append(Run(first: UInt32(first), count: UInt32(count), next: record.later))
            record.later = Int32(laterRuns.count - 1)
            return
        }
        let old = Int(record.first), oldCount = Int(record.count)
        var run = inPlace ? fields.elements(start..<start + count) : pending.fields.elements(start..<start + count)
        // The same keys again (the same selection of the same object): new values in place.
        if oldCount == count, (0..<count).allSatisfy({ Self.haveSameKey(fields[old + $0], run[$0]) }) {
            for offset in 0..<count {
                fields[old + offset].valueStart = run[offset].valueStart
                fields[old + offset].valueCount = run[offset].valueCount
            }
            if inPlace { fields.truncate(to: start) }
            return
        }
        try fields.reserve(oldCount + count, while: "merging the fields of a record given again")
        if inPlace { run = fields.elements(start..<start + count) }
        let merged = fields.count
        var left = old, right = 0
        let leftEnd = old + oldCount
        while left < leftEnd || right < count {
            if right == count {
                fields.append(fields[left]); left += 1
            } else if left == leftEnd {
                fields.append(run[right]); right += 1
            } else {
                let order = Self.haveSameKey(fields[left], run[right]) ? 0 : KeyBytes.compare(fields[left].keyBytes, run[right].keyBytes)
                if order < 0 {
                    fields.append(fields[left]); left += 1
                } else if order > 0 {
                    fields.append(run[right]); right += 1
                } else {
                    var later = run[right]
                    later.order = fields[left].order
                    fields.append(later)
                    left += 1; right += 1
                }
            }
        }
        let mergedCount = fields.count - merged
        if inPlace {
            // Over the run, which was last.
            fields.address(of: start).update(from: fields.address(of: merged), count: mergedCount)
            fields.truncate(to: start + mergedCount)
        }
        record.first = UInt32(inPlace ? start : merged)
        record.count = UInt32(mergedCount)
    }

    @inline(__always)
    private static func haveSameKey(_ a: Field, _ b: Field) -> Bool {
        a.keyCount == b.keyCount && (a.key == b.key || KeyBytes.equal(a.keyBytes, b.keyBytes))
    }

    /// Sorts `fields[start...]` by key, stably; of equal keys the last value stays, with
    /// the order of the first.
    static func sortRun(_ fields: inout PlainArray<Field>, from start: Int) {
        let count = fields.count - start
        guard count > 1 else { return }
        let run = fields.elements(start..<fields.count)
        if count <= 16 {
            for position in 1..<count {
                let moving = run[position]
                var slot = position
                while slot > 0, KeyBytes.compare(run[slot - 1].keyBytes, moving.keyBytes) > 0 {
                    run[slot] = run[slot - 1]
                    slot -= 1
                }
                run[slot] = moving
            }
        } else {
            let sorted = run.indices.sorted { left, right in
                let order = KeyBytes.compare(run[left].keyBytes, run[right].keyBytes)
                return order == 0 ? left < right : order < 0
            }.map { run[$0] }
            _ = run.update(from: sorted)
        }
        // Collapse runs of one key: the last value, the first order.
        var kept = 1
        for position in 1..<count {
            if KeyBytes.equal(run[kept - 1].keyBytes, run[position].keyBytes) {
                let order = run[kept - 1].order
                run[kept - 1] = run[position]
                run[kept - 1].order = order
            } else {
                if kept != position { run[kept] = run[position] }
                kept += 1
            }
        }
        fields.truncate(to: start + kept)
    }

    /// Adds the records still pending, then merges the runs of records given many times
    /// over (see `eagerMergeLimit`).
    mutating func finish() throws(NormCacheError) {
        try addPending()
        for target in 0..<records.count where records[target].later >= 0 {
            var runs: [(first: Int, count: Int)] = []
            var next = Int(records[target].later)
            while next >= 0 {
                runs.append((Int(laterRuns[next].first), Int(laterRuns[next].count)))
                next = Int(laterRuns[next].next)
            }
            try fields.reserve(runs.reduce(Int(records[target].count)) { $0 + $1.count },
                               while: "merging the fields of a record given again")
            let start = fields.count
            for offset in 0..<Int(records[target].count) { fields.append(fields[Int(records[target].first) + offset]) }
            for run in runs.reversed() {
                for offset in 0..<run.count { fields.append(fields[run.first + offset]) }
            }
            Self.sortRun(&fields, from: start)
            records[target].first = UInt32(start)
            records[target].count = UInt32(fields.count - start)
            records[target].later = -1
        }
        laterRuns.truncate(to: 0)
    }

    // MARK: Reading

    /// The key of record `index`.
    @inline(__always)
    func key(of index: Int) -> UnsafeRawBufferPointer {
        let record = records[index]
        internalCheck(Int(record.keyStart) + Int(record.keyCount) <= keys.count, "record key \(index) past the keys written")
        return UnsafeRawBufferPointer(start: keys.start.assumedPresent + Int(record.keyStart), count: Int(record.keyCount))
    }

    /// The encoded value of a field.
    @inline(__always)
    func value(of field: Field) -> UnsafeRawBufferPointer {
        internalCheck(Int(field.valueStart) + Int(field.valueCount) <= values.count, "a field value past the values written")
        return UnsafeRawBufferPointer(start: values.start.map { $0 + Int(field.valueStart) }, count: Int(field.valueCount))
    }

    /// The record indices in ascending key order: the order LMDB takes them fastest in.
    func recordsInKeyOrder() -> [Int32] {
        // Sorted as entries holding each key's first sixteen bytes, so that the sort reads
        // neither the records nor their keys (records put in key order, as an export or a
        // generated load puts them, are one run that the sort takes in one pass).
        var entries: [KeyOrderEntry] = []
        entries.reserveCapacity(records.count)
        for index in 0..<records.count {
            let key = key(of: index)
            entries.append(KeyOrderEntry(head: KeyBytes.word(of: key, at: 0), tail: KeyBytes.word(of: key, at: 8), record: Int32(index)))
        }
        entries.sort { $0.head != $1.head ? $0.head < $1.head : $0.tail < $1.tail }
        // Keys that share their first sixteen bytes (long keys only) are then ordered whole.
        var start = 0
        while start < entries.count {
            var end = start &+ 1
            while end < entries.count, entries[end].head == entries[start].head, entries[end].tail == entries[start].tail { end &+= 1 }
            if end &- start > 1 {
                entries[start..<end].sort { KeyBytes.compare(key(of: Int($0.record)), key(of: Int($1.record))) < 0 }
            }
            start = end
        }
        return entries.map(\.record)
    }

    /// The batch in the records JSON notation, records and fields in order of first
    /// appearance, as a malloc'd block that the caller releases with `free` (see
    /// `ByteBuffer.takeBlock`); throws `.outOfMemory` when it cannot be had.
    func json() throws(NormCacheError) -> (start: UnsafeMutableRawPointer, count: Int) {
        var out = ByteBuffer()
        out.append(UInt8(ascii: "{"))
        for index in 0..<records.count {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.appendQuoted(key(of: index))
            out.append(":{")
            let record = records[index]
            let run = fields.elements(Int(record.first)..<Int(record.first + record.count))
            for (position, field) in run.sorted(by: { $0.order < $1.order }).enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                out.appendQuoted(field.keyBytes)
                out.append(UInt8(ascii: ":"))
                var reader = ByteReader(value(of: field))
                _ = FieldValue.appendJSON(from: &reader, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        return try out.takeBlock(while: "writing the records as JSON")
    }
}
