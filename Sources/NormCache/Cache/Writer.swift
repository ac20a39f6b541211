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
        guard reportingChanges else {
            try store.write(reserving: batch.byteCount) { (txn) throws(NormCacheError) in try merge(batch, in: txn, noting: nil) }
            return ChangedFields()
        }
        var changes = try ChangeList(capacity: batch.fields.count)
        try withUnsafeMutablePointer(to: &changes) { (list) throws(NormCacheError) in
            try store.write(reserving: batch.byteCount) { (txn) throws(NormCacheError) in
                // A write tried again (its map grown) notes its changes anew.
                list.pointee.removeAll()
                try merge(batch, in: txn, noting: list)
                // Before the commit: a write that fails here writes nothing.
                try list.pointee.putInInputOrder()
            }
        }
        return Self.names(of: changes, in: batch)
    }

    /// Merges `batch` within `txn`, a write transaction of the caller's, noting the
    /// changed fields in `changes` when given. The transaction's change set notes them
    /// whether listed or not: a new record as a whole, a stored one field by field.
    func merge(_ batch: borrowing RecordBatch, in txn: StoreTransaction, noting changes: UnsafeMutablePointer<ChangeList>?) throws(NormCacheError) {
        let order = batch.recordsInKeyOrder()
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
                if let changes {
                    for field in 0..<fields.count {
                        changes.pointee.note(fields[field], at: record.first + UInt32(field), record: recordIndex, keyCount: key.count)
                    }
                }
            case .existing(let stored):
                CacheLines.prefetch(stored)
                guard let view = RecordView(stored) else { throw txn.damaged(key) }
                let rewrite = try encoder.merge(view, fields, of: batch, into: &merged, key: key) { field in
                    log?.noteField(record: key, field: fields[field].keyBytes)
                    changes?.pointee.note(fields[field], at: record.first + UInt32(field), record: recordIndex, keyCount: key.count)
                }
                if rewrite { try session.replace(key, with: merged.bytes) }
            }
        }
    }

    /// The changed fields named `recordKey.fieldKey`, in input order (`changes` put in
    /// it).
    static func names(of changes: borrowing ChangeList, in batch: borrowing RecordBatch) -> ChangedFields {
        ChangedFields(count: changes.count, bytes: changes.nameBytes) { position in
            let change = changes[position]
            return (batch.key(of: Int(change.record)), batch.fields[Int(change.field)].keyBytes)
        }
    }
}
