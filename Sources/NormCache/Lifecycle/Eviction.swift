/// Eviction of whole records, least recently written first, until a cache's data
/// (`StoreTransaction.dataBytes`) is at or below a target, inside one write
/// transaction: a process killed during it leaves all of it or none of it.
///
/// No index is kept, so writes pay nothing for it: a record's age is the newest
/// written-at time of its fields, read when an eviction runs (rarely, as it evicts
/// down to a low-water mark). Each round makes two passes over the records. The first
/// sums the records' stored bytes by age in a histogram of bounded size
/// (`AgeHistogram`) and picks the age up to which to evict, the bytes to free scaled
/// by the page bytes a stored byte takes. The second removes those records through
/// `StoreTransaction.removeRecord`, which notes each in the commit's change set (so the
/// commit log and the watchers see an eviction as any removal), `batchSize` keys at a
/// time, with no cursor open across a removal. Rounds repeat until the data is at or
/// below the target or nothing evictable is left: pages shared by removed and kept
/// records stay in use, so the data may shrink less than the records removed.
///
/// Never evicted: the root records (`QUERY_ROOT`, `MUTATION_ROOT`,
/// `SUBSCRIPTION_ROOT`), and what `Spared` names.
enum Eviction {
    /// The root records, which every read starts from.
    static let roots: [[UInt8]] = [Array("QUERY_ROOT".utf8), Array("MUTATION_ROOT".utf8), Array("SUBSCRIPTION_ROOT".utf8)]
    /// The keys removed per batch of the removal pass.
    private static let batchSize = 256
    /// What LMDB spends on an entry beside its key and value (the node header and its
    /// pointer), in bytes.
    private static let entryOverhead = 10

    /// Evicts records, oldest first, until the data of `txn` is at most `target` bytes
    /// or only roots and `spared` records are left; reports what it removed.
    /// Retained keys (`retain`) are spared too.
    static func evict(_ txn: StoreTransaction, downTo target: Int, sparing given: Spared = Spared()) throws(NormCacheError) -> EvictionReport {
        var spared = given
        try txn.forEachRetainedKey { (key) throws(NormCacheError) in spared.insert(key) }
        var report = EvictionReport(dataBytesBefore: try txn.dataBytes())
        report.dataBytesAfter = report.dataBytesBefore
        var groups: [[UInt8]: Int] = [:]
        while report.dataBytesAfter > target {
            var census = Census()
            try forEachRecord(txn, after: nil, into: &census) { (census, key, record, size) throws(NormCacheError) in
                census.storedBytes += size
                guard !isRoot(key), !spared.spares(key) else { return true }
                let age = try age(of: record, key, txn)
                census.histogram.add(age: age, bytes: size)
                census.newest = max(census.newest, age)
                return true
            }
            let pageBytesPerByte = Double(report.dataBytesAfter) / Double(max(census.storedBytes, 1))
            let toFree = Int((Double(report.dataBytesAfter - target) / pageBytesPerByte).rounded(.up))
            guard let cutoff = census.histogram.cutoff(covering: max(toFree, 1), sparingFrom: spared.newestSecond ? census.newest : nil)
            else { break }
            let removed = try remove(txn, olderThan: cutoff, sparing: spared, report: &report, groups: &groups)
            report.dataBytesAfter = try txn.dataBytes()
            guard removed > 0 else { break }
        }
        report.groups = groups.map { EvictionReport.Group(group: String(decoding: $0.key, as: UTF8.self), records: $0.value) }
            .sorted { $0.group.utf8.lexicographicallyPrecedes($1.group.utf8) }
        return report
    }

    /// The size limit of a handle's writes (`CacheOptions.maxBytes`): when the write of
    /// `txn` leaves more data than the limit, evicts down to the low-water mark, sparing
    /// what the write changed; throws `.storage` when the data stays over the limit.
    static func enforce(in txn: StoreTransaction, options: CacheOptions) throws(NormCacheError) {
        guard try txn.dataBytes() > options.maxBytes, let changes = txn.changes else { return }
        let lowWater = Int(Double(options.maxBytes) * options.lowWater)
        let report = try evict(txn, downTo: lowWater, sparing: Spared(changes: changes))
        guard report.dataBytesAfter > options.maxBytes else { return }
        throw NormCacheError(.storage, "the write leaves \(report.dataBytesAfter) bytes of data in '\(txn.path)', over its max_bytes of "
            + "\(options.maxBytes), with every record it may evict evicted (the roots and the records it wrote stay); nothing was written")
    }

    /// What a write's own eviction (`CacheOptions.maxBytes`) must leave: the records the
    /// write changed, whether noted field by field or, as a record the write created,
    /// whole (a whole record the write removed is gone anyway). When its change set
    /// keeps no keys (past `ChangeSet.maximumBytes`), the records written in the newest
    /// second stand for them.
    struct Spared {
        private var keys: Set<[UInt8]> = []
        /// Whether the records of the newest written-at second are spared.
        private(set) var newestSecond = false

        /// Spares nothing.
        init() {}

        /// Spares the records `changes` names, by their fields or whole.
        init(changes: ChangeSet) {
            changes.forEachChange { change in
                switch change {
                case .field(let record, _), .record(let record): keys.insert(Array(record))
                case .everything: newestSecond = true
                case .prefix: break
                }
            }
        }

        /// Spares the record `key` too.
        mutating func insert(_ key: UnsafeRawBufferPointer) {
            keys.insert(Array(key))
        }

        /// Whether the record `key` is spared by name.
        func spares(_ key: UnsafeRawBufferPointer) -> Bool {
            !keys.isEmpty && keys.contains(Array(key))
        }
    }

    /// The age of a record: the newest written-at time of its fields.
    private static func age(of record: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer, _ txn: StoreTransaction) throws(NormCacheError) -> UInt64 {
        guard let view = RecordView(record) else { throw txn.damaged(key) }
        var newest: UInt64 = 0
        for position in 0..<view.count {
            guard let field = view.field(at: position) else { throw txn.damaged(key) }
            newest = max(newest, field.writtenAt)
        }
        return newest
    }

    private static func isRoot(_ key: UnsafeRawBufferPointer) -> Bool {
        roots.contains { $0.elementsEqual(key) }
    }

    /// Removes the records not spared whose age falls at or below `cutoff`, a batch at
    /// a time; counts them by key group. Returns how many it removed.
    private static func remove(_ txn: StoreTransaction, olderThan cutoff: AgeHistogram.Cutoff, sparing spared: Spared,
                               report: inout EvictionReport, groups: inout [[UInt8]: Int]) throws(NormCacheError) -> Int {
        var removed = 0
        var batch = Batch()
        repeat {
            batch.keys.removeAll(keepingCapacity: true)
            try forEachRecord(txn, after: batch.resume, into: &batch) { (batch, key, record, size) throws(NormCacheError) in
                batch.resume = batch.current
                guard !isRoot(key), !spared.spares(key), cutoff.includes(try age(of: record, key, txn)) else { return true }
                batch.keys.append((Array(key), size))
                return batch.keys.count < batchSize
            }
            for (key, size) in batch.keys {
                let found = try key.withBytes { (key) throws(NormCacheError) in try txn.removeRecord(key) }
                guard found else { continue }
                removed += 1
                report.records += 1
                report.bytes += size
                groups[key.withUnsafeBytes { Array(KeyGroupStats.group(of: $0)) }, default: 0] += 1
            }
        } while batch.keys.count == batchSize
        return removed
    }

    /// Calls `visit` with each record's full key, stored bytes and size in LMDB (key,
    /// value and entry overhead), in stored-key order, starting after the stored key
    /// `after` when given, until `visit` returns false. `sink.current` is set to the
    /// stored key of the entry being visited.
    private static func forEachRecord<Sink: Resumable>(
        _ txn: StoreTransaction, after: [UInt8]?, into sink: inout Sink,
        _ visit: (inout Sink, UnsafeRawBufferPointer, UnsafeRawBufferPointer, Int) throws(NormCacheError) -> Bool
    ) throws(NormCacheError) {
        let cursor = try txn.cursor()
        defer { cursor.close() }
        var entry: (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)?
        if let after {
            entry = try after.withBytes { (start) throws(NormCacheError) in try txn.lmdb { () throws(LMDBError) in try cursor.seek(atOrAfter: start) } }
            if let found = entry, found.key.elementsEqual(after) { entry = try txn.lmdb { () throws(LMDBError) in try cursor.next() } }
        } else {
            entry = try txn.lmdb { () throws(LMDBError) in try cursor.first() }
        }
        while let (storedKey, stored) = entry {
            let value = try txn.checked(stored, storedKey)
            let size = storedKey.count + value.count + entryOverhead
            sink.current = Array(storedKey)
            let more: Bool
            if StorageKey.isLong(storedKey) {
                guard let key = StorageKey.recordKey(stored: storedKey, value: value),
                      let (_, record) = StorageKey.splitLongValue(value) else { throw txn.damaged(storedKey) }
                more = try key.withBytes { (key) throws(NormCacheError) in try visit(&sink, key, record, size) }
            } else {
                more = try visit(&sink, storedKey, value, size)
            }
            guard more else { return }
            entry = try txn.lmdb { () throws(LMDBError) in try cursor.next() }
        }
    }
}

/// What a walk of `Eviction.forEachRecord` keeps: the stored key it is at.
private protocol Resumable {
    var current: [UInt8]? { get set }
}

/// The first pass of a round: the ages of the evictable records, the bytes of all.
private struct Census: Resumable {
    var current: [UInt8]?
    var histogram = AgeHistogram()
    var storedBytes = 0
    var newest: UInt64 = 0
}

/// A batch of the removal pass: the keys (and sizes) found, and where the next starts.
private struct Batch: Resumable {
    var current: [UInt8]?
    var resume: [UInt8]?
    var keys: [([UInt8], Int)] = []
}
