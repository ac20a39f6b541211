/// Merges batches of records into the store, the counterpart of `Reader`: one write
/// transaction per batch, its records in key order through one `RecordWriteSession`. A
/// new record is encoded straight into the room storage reserves for it; a stored one
/// is merged field by field (a field written again replaces the stored one, the others
/// stay) and rewritten only when something changed. On any error nothing is written.
struct Writer {
    /// The store written to.
    let store: RecordStore
    /// Encodes the records, stamping each field with the time of the write.
    let encoder: RecordEncoder

    /// Merges `batch` in one transaction; returns the changed fields in input order
    /// (none when not `reportingChanges`).
    func merge(_ batch: borrowing RecordBatch, reportingChanges: Bool) throws(NormCacheError) -> ChangedFields {
        let changes = try store.write(reserving: batch.byteCount) { (txn) throws(NormCacheError) -> [Change] in
            try merge(batch, in: txn, reportingChanges: reportingChanges)
        }
        return Self.names(of: changes, in: batch)
    }

    /// Merges `batch` within `txn`, a write transaction of the caller's; returns the
    /// changed fields, to be named by `names(of:in:)`. The transaction's change set
    /// notes them whether reported or not: a new record as a whole, a stored one field by
    /// field.
    func merge(_ batch: borrowing RecordBatch, in txn: StoreTransaction, reportingChanges: Bool) throws(NormCacheError) -> [Change] {
        let order = batch.recordsInKeyOrder()
        var changes: [Change] = []
        // At most every field changes: room for all at once, so that the list is not
        // copied as it grows (its pages untouched past the changes made).
        if reportingChanges { changes.reserveCapacity(batch.fields.count) }
        var merged = ByteBuffer()
        var session = try RecordWriteSession(txn)
        var interruptCheck = InterruptCheck()
        let log = txn.changes
        for recordIndex in order {
            try interruptCheck.pass()
            let record = batch.records[Int(recordIndex)]
            let key = batch.key(of: Int(recordIndex))
            let fields = batch.fields.elements(Int(record.first)..<Int(record.first + record.count))
            let size = encoder.size(of: fields)
            try RecordEncoder.check(size: size, key: key)
            switch try session.place(key, reserving: size) {
            case .reserved(let room):
                encoder.write(fields, of: batch, to: room)
                log?.noteRecord(key, fields: fields.count)
                if reportingChanges {
                    for field in 0..<fields.count { changes.append(Change(order: fields[field].order, record: recordIndex, field: record.first + UInt32(field))) }
                }
            case .existing(let stored):
                CacheLines.prefetch(stored)
                guard let view = RecordView(stored) else { throw txn.damaged(key) }
                let rewrite = try encoder.merge(view, fields, of: batch, into: &merged, key: key) { field in
                    log?.noteField(record: key, field: fields[field].keyBytes)
                    if reportingChanges { changes.append(Change(order: fields[field].order, record: recordIndex, field: record.first + UInt32(field))) }
                }
                if rewrite { try session.replace(key, with: merged.bytes) }
            }
        }
        return changes
    }

    /// The changed fields named `recordKey.fieldKey`, in input order. The changes come
    /// in key order. Their places in the input are unique and, but for fields a record
    /// given again replaced, dense: each change goes to its place in a table of them,
    /// read in order (linear, where a sort of 100,000 changes took milliseconds); sparse
    /// places are sorted instead.
    static func names(of changes: [Change], in batch: borrowing RecordBatch) -> ChangedFields {
        var bytes = 0
        var lastPlace: UInt32 = 0
        for change in changes {
            bytes += batch.key(of: Int(change.record)).count + 1 + Int(batch.fields[Int(change.field)].keyCount)
            lastPlace = max(lastPlace, change.order)
        }
        // Change indices in input order.
        var inputOrder: [UInt32]
        if Int(lastPlace) < 4 * changes.count + 1024 {
            // Change index + 1 by place; 0 where no change is.
            var byPlace = [UInt32](repeating: 0, count: Int(lastPlace) + 1)
            for (index, change) in changes.enumerated() {
                internalCheck(byPlace[Int(change.order)] == 0, "two changed fields at input place \(change.order)")
                byPlace[Int(change.order)] = UInt32(index + 1)
            }
            inputOrder = []
            inputOrder.reserveCapacity(changes.count)
            for entry in byPlace where entry != 0 { inputOrder.append(entry - 1) }
        } else {
            var byOrder = changes.indices.map { UInt64(changes[$0].order) << 32 | UInt64($0) }
            byOrder.sort()
            inputOrder = byOrder.map { UInt32(truncatingIfNeeded: $0) }
        }
        return ChangedFields(count: inputOrder.count, bytes: bytes) { position in
            let change = changes[Int(inputOrder[position])]
            return (batch.key(of: Int(change.record)), batch.fields[Int(change.field)].keyBytes)
        }
    }

    /// A field a write changed: its place in the input, its record and its index in the
    /// batch's fields.
    struct Change {
        var order: UInt32
        var record: Int32
        var field: UInt32
    }
}
