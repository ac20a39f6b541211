/// Mark and sweep garbage collection inside one transaction (a write transaction, or a
/// read transaction for a dry run), streaming the records in key order with a cursor
/// and never holding more than the mark set, the keys still to visit and one record's
/// references.
///
/// Mark: the roots — `QUERY_ROOT`, `MUTATION_ROOT`, `SUBSCRIPTION_ROOT`, every plain
/// JSON document (`DocumentRecord.isDocument`) and every retained key — are found in one
/// pass over the records and the retain counts; from each, a depth-first walk follows
/// the references in the record values (`FieldValue.collectReferences`) of the fields
/// that stay, marking the 64-bit hash of each key reached in a `MarkSet`.
///
/// Sweep: a second pass removes every record whose hash is unmarked and edits the
/// marked ones (stale and, if asked, dangling fields). A hash collision could make the
/// mark walk skip a record (its hash already marked by another key) and so leave its
/// references unmarked; the sweep therefore checks that each record it keeps is the one
/// record of its hash the walk visited, and when one is not, returns nil: the caller
/// aborts the transaction (nothing written) and starts again with another hash seed. A
/// collision can thus keep garbage for one attempt, never remove live data.
///
/// The seed of attempt n is the file's key salt mixed with n + 1. As no test can find
/// two keys whose 64-bit hashes meet, tests force a collision through `MarkHash`.
struct GarbageCollector: ~Copyable {
    /// A hash that replaces the salted one of `key` in `attempt` (0 for the first), or nil
    /// to keep the salted one: the seam by which tests make keys collide in the mark set.
    typealias MarkHash = (_ key: UnsafeRawBufferPointer, _ attempt: UInt64) -> UInt64?

    private let txn: StoreTransaction
    private let options: GarbageCollectionOptions
    private let now: UInt64
    private let attempt: UInt64
    private let seed: UInt64
    private let markHash: MarkHash?
    private var marks = MarkSet()
    /// The keys still to visit, each followed by its length as 4 little-endian bytes.
    private var stack: [UInt8] = []
    private var current: [UInt8] = []
    private var references: [[UInt8]] = []
    private var tally = GroupTally()
    private var report = GarbageCollectionReport(
        dryRun: false, removedRecords: 0, unreachableRecords: 0, emptiedRecords: 0,
        removedFields: 0, staleFields: 0, danglingFields: 0, keptRecords: 0,
        groups: [], markSetBytes: 0, elapsedMicroseconds: 0)

    /// The keys of the operation roots.
    private static let roots: [[UInt8]] = ["QUERY_ROOT", "MUTATION_ROOT", "SUBSCRIPTION_ROOT"].map { Array($0.utf8) }

    /// Collects in `txn` (written unless `options.dryRun`) with the hash seed of
    /// `attempt` (and `markHash`, when given, over it); nil when a possible hash collision
    /// means the attempt must be dropped.
    static func run(
        _ txn: StoreTransaction, options: GarbageCollectionOptions, now: UInt64,
        attempt: UInt64, markHash: MarkHash? = nil
    ) throws(NormCacheError) -> GarbageCollectionReport? {
        var collector = GarbageCollector(txn: txn, options: options, now: now, attempt: attempt, markHash: markHash)
        try collector.markRoots()
        guard try collector.sweep() else { return nil }
        return collector.finish()
    }

    private init(txn: StoreTransaction, options: GarbageCollectionOptions, now: UInt64, attempt: UInt64, markHash: MarkHash?) {
        self.txn = txn
        self.options = options
        self.now = now
        self.attempt = attempt
        self.seed = txn.keySalt ^ ((attempt &+ 1) &* 0x9e37_79b9_7f4a_7c15)
        self.markHash = markHash
        report.dryRun = options.dryRun
    }

    // MARK: Mark

    private mutating func markRoots() throws(NormCacheError) {
        var retained: [[UInt8]] = []
        try txn.forEachRetainedKey { (key) throws(NormCacheError) in retained.append(Array(key)) }
        for key in retained { try key.withBytes { (key) throws(NormCacheError) in try mark(key) } }
        let cursor = try txn.cursor()
        defer { cursor.close() }
        var entry = try txn.lmdb { () throws(LMDBError) in try cursor.first() }
        while let (storedKey, value) = entry {
            try Self.withEntry(txn, storedKey, value) { (key, record) throws(NormCacheError) in
                if Self.roots.contains(where: { (root) in root.withUnsafeBytes { KeyBytes.equal($0, key) } }) || DocumentRecord.isDocument(record) {
                    try mark(key)
                }
            }
            entry = try txn.lmdb { () throws(LMDBError) in try cursor.next() }
        }
    }

    /// Marks `key` and everything it reaches.
    private mutating func mark(_ key: UnsafeRawBufferPointer) throws(NormCacheError) {
        push(key)
        while let length = stack.last.map({ _ in Self.popLength(&stack) }) {
            current.removeAll(keepingCapacity: true)
            current.append(contentsOf: stack[(stack.count - length)...])
            stack.removeLast(length)
            let visiting = current
            try visiting.withBytes { (key) throws(NormCacheError) in try visit(key) }
        }
    }

    /// Marks the references of the fields of the record `key` that stay.
    private mutating func visit(_ key: UnsafeRawBufferPointer) throws(NormCacheError) {
        guard let stored = try txn.record(key) else { return }
        guard let view = RecordView(stored) else { throw txn.damaged(key) }
        var keepsFields = false
        for index in 0..<view.count {
            guard let field = view.field(at: index) else { throw txn.damaged(key) }
            if isStale(field) { continue }
            keepsFields = true
            try collectReferences(field, of: key)
            for reference in references { reference.withUnsafeBytes { push($0) } }
        }
        marks.add(MarkSet.visited | (keepsFields ? MarkSet.keepsFields : 0), to: hash(key))
    }

    private mutating func push(_ key: UnsafeRawBufferPointer) {
        guard marks.insert(hash(key)) else { return }
        stack.append(contentsOf: key)
        let length = UInt32(key.count)
        for shift in stride(from: 0, to: 32, by: 8) { stack.append(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
    }

    private static func popLength(_ stack: inout [UInt8]) -> Int {
        var length = 0
        for _ in 0..<4 { length = length << 8 | Int(stack.removeLast()) }
        return length
    }

    // MARK: Sweep

    /// Removes and edits records; false when a kept record is not the one the mark
    /// walk visited for its hash.
    private mutating func sweep() throws(NormCacheError) -> Bool {
        var cursor = try txn.cursor()
        defer { cursor.close() }
        var entry = try txn.lmdb { () throws(LMDBError) in try cursor.first() }
        while let (storedKey, value) = entry {
            var resumeAt: [UInt8]?
            var consistent = true
            try Self.withEntry(txn, storedKey, value) { (key, record) throws(NormCacheError) in
                // Copied first: a change rewrites the page the key lies in.
                let place = options.dryRun ? [] : Array(storedKey)
                switch try sweep(key, record) {
                case .kept: break
                case .changed: resumeAt = place
                case .collision: consistent = false
                }
            }
            guard consistent else { return false }
            if let resumeAt {
                // The write moved pages under the cursor: find the place again with a
                // new cursor (LMDB's fix-up of the old one after a delete through another
                // path can leave its next seek short).
                cursor.close()
                cursor = try txn.cursor()
                entry = try resumeAt.withBytes { (key) throws(NormCacheError) in
                    try txn.lmdb { () throws(LMDBError) in try cursor.seek(atOrAfter: key) }
                }
                if let (key, _) = entry, resumeAt.elementsEqual(key) {
                    entry = try txn.lmdb { () throws(LMDBError) in try cursor.next() }
                }
            } else {
                entry = try txn.lmdb { () throws(LMDBError) in try cursor.next() }
            }
        }
        return true
    }

    private enum Outcome {
        case kept, changed, collision
    }

    private mutating func sweep(_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) throws(NormCacheError) -> Outcome {
        let keyHash = hash(key)
        guard let flags = marks.flags(keyHash) else {
            report.unreachableRecords += 1
            tally.count(key, records: 1, fields: 0)
            return try remove(key)
        }
        guard flags & MarkSet.visited != 0, flags & MarkSet.swept == 0 else { return .collision }
        marks.add(MarkSet.swept, to: keyHash)
        guard let view = RecordView(record) else { throw txn.damaged(key) }
        var dropped: [Int] = []
        for index in 0..<view.count {
            guard let field = view.field(at: index) else { throw txn.damaged(key) }
            if isStale(field) {
                report.staleFields += 1
                dropped.append(index)
            } else if options.removeDanglingReferences, try dangles(field, of: key) {
                report.danglingFields += 1
                dropped.append(index)
            }
        }
        guard !dropped.isEmpty else {
            report.keptRecords += 1
            return .kept
        }
        tally.count(key, records: dropped.count == view.count ? 1 : 0, fields: dropped.count)
        if dropped.count == view.count {
            report.emptiedRecords += 1
            return try remove(key)
        }
        report.keptRecords += 1
        guard !options.dryRun else { return .kept }
        let keyCopy = Array(key)
        try keyCopy.withBytes { (key) throws(NormCacheError) in
            var out = ByteBuffer(capacity: record.count)
            _ = try RecordEncoder.rewrite(view, into: &out, key: key) { position, _ in dropped.contains(position) ? .drop : .keep }
            for index in dropped {
                guard let field = view.entry(at: index) else { throw txn.damaged(key) }
                txn.changes?.noteField(record: key, field: field.key)
            }
            try txn.setRecord(key, out.bytes)
        }
        return .changed
    }

    private func remove(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> Outcome {
        guard !options.dryRun else { return .kept }
        _ = try Array(key).withBytes { (key) throws(NormCacheError) in try txn.removeRecord(key) }
        return .changed
    }

    // MARK: Fields

    /// Whether the field is stale beyond the grace period.
    private func isStale(_ field: RecordView.Field) -> Bool {
        guard let grace = options.staleGrace, let expiresAt = FieldMetadata(field.metadata)?.expiresAt else { return false }
        return expiresAt <= now && now - expiresAt >= grace
    }

    /// Whether the field holds a reference to a record that is absent (or left without
    /// fields).
    private mutating func dangles(_ field: RecordView.Field, of key: UnsafeRawBufferPointer) throws(NormCacheError) -> Bool {
        try collectReferences(field, of: key)
        let live = MarkSet.visited | MarkSet.keepsFields
        return references.contains { reference in
            reference.withUnsafeBytes { (marks.flags(hash($0)) ?? 0) & live != live }
        }
    }

    private mutating func collectReferences(_ field: RecordView.Field, of key: UnsafeRawBufferPointer) throws(NormCacheError) {
        references.removeAll(keepingCapacity: true)
        var reader = ByteReader(field.value)
        guard FieldValue.collectReferences(&reader, into: &references), reader.isAtEnd else { throw txn.damaged(key) }
    }

    // MARK: Entries

    private func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        if let markHash, let forced = markHash(key, attempt) { return forced }
        return StorageKey.hash64(key, salt: seed)
    }

    /// Calls `body` with the record key and record bytes of an LMDB entry.
    private static func withEntry(
        _ txn: StoreTransaction, _ storedKey: UnsafeRawBufferPointer, _ storedValue: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(NormCacheError) -> Void
    ) throws(NormCacheError) {
        let value = try txn.checked(storedValue, storedKey)
        guard StorageKey.isLong(storedKey) else { return try body(storedKey, value) }
        guard let key = StorageKey.recordKey(stored: storedKey, value: value),
            let (_, record) = StorageKey.splitLongValue(value)
        else { throw txn.damaged(storedKey) }
        try key.withBytes { (key) throws(NormCacheError) in try body(key, record) }
    }

    private consuming func finish() -> GarbageCollectionReport {
        report.removedRecords = report.unreachableRecords + report.emptiedRecords
        report.removedFields = report.staleFields + report.danglingFields
        report.groups = tally.groups()
        report.markSetBytes = marks.bytes
        return report
    }
}

/// The removals per key group; keys come in order, so a group's run is counted in
/// place and added to the table when the next group starts.
private struct GroupTally {
    private var totals: [[UInt8]: (records: Int, fields: Int)] = [:]
    private var run: (group: [UInt8], records: Int, fields: Int)?

    mutating func count(_ key: UnsafeRawBufferPointer, records: Int, fields: Int) {
        let group = KeyGroupStats.group(of: key)
        if let current = run, KeyBytes.equal(current.group.withUnsafeBytes { $0 }, group) {
            run = (current.group, current.records + records, current.fields + fields)
            return
        }
        flush()
        run = (Array(group), records, fields)
    }

    mutating func groups() -> [GarbageCollectionReport.Group] {
        flush()
        return totals.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map {
            GarbageCollectionReport.Group(name: String(decoding: $0.key, as: UTF8.self), records: $0.value.records, fields: $0.value.fields)
        }
    }

    private mutating func flush() {
        guard let current = run else { return }
        let total = totals[current.group] ?? (0, 0)
        totals[current.group] = (total.records + current.records, total.fields + current.fields)
        run = nil
    }
}
