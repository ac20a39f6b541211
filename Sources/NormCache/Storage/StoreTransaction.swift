/// Record bytes by record key, inside one LMDB transaction of a `RecordStore`.
/// Record keys are UTF-8 bytes of any length (see `StorageKey`); record bytes are
/// opaque here. Values returned point into the map and stay valid until the
/// transaction ends or writes.
///
/// The LMDB handles it holds are the storage layer's own: the other layers reach
/// records through its methods, `RecordLookup` and `RecordWriteSession`.
struct StoreTransaction {
    let txn: LMDBTransaction
    let records: LMDBDatabase
    /// The meta database: the format version, the key salt, and what `metaValue` names.
    let meta: LMDBDatabase
    /// The file's environment, for its path in error messages. Not counted: a
    /// transaction lives within a call of that environment, and a reference counted on
    /// every read would be one more atomic write to a line every reading thread shares.
    unowned(unsafe) let file: SharedEnvironment
    /// The cache path, for error messages.
    var path: String { file.path }
    /// The salt of the hashes of long keys.
    let keySalt: UInt64
    /// The pages of the file in use, as mapped; values LMDB returns from the map must
    /// lie inside (a damaged file could claim sizes past its end).
    let mapped: UnsafeRawBufferPointer?
    /// Of a write transaction: raised when a call finds the map full.
    let fullMap: FullMapSignal?
    /// The commit log database (see `StoreTransaction+CommitLog`), nil when the file has
    /// none.
    let log: LMDBDatabase?
    /// Of a write transaction: what it changed, for the commit log and the watchers.
    /// Every method here that removes records notes it; a caller that changes fields
    /// notes them itself (`Writer`).
    let changes: ChangeSet?

    /// The library's error for a failed LMDB call of this transaction; notes a full map.
    func failure(_ error: LMDBError) -> NormCacheError {
        if error.status == .mapFull { fullMap?.isRaised = true }
        return NormCacheError(error, path: path)
    }

    /// Runs LMDB calls, their failure mapped by `failure`.
    @inline(__always)
    func lmdb<T>(_ calls: () throws(LMDBError) -> T) throws(NormCacheError) -> T {
        do throws(LMDBError) { return try calls() } catch { throw failure(error) }
    }

    /// Checks that a value LMDB returned lies in the mapped pages or outside the map
    /// altogether (a page this write transaction changed lives in memory of its own).
    func checked(_ value: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UnsafeRawBufferPointer {
        guard let mapped, let start = mapped.baseAddress, let valueStart = value.baseAddress else { return value }
        let mapEnd = start + mapped.count
        if valueStart >= start && valueStart < mapEnd && value.count > mapEnd - valueStart { throw damaged(key) }
        return value
    }

    /// The stored bytes of the record `key`, or nil (`RecordLookup` finds many through
    /// one cursor).
    func record(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UnsafeRawBufferPointer? {
        guard key.count > StorageKey.directLimit else {
            let value = try lmdb { () throws(LMDBError) in try txn.get(records, key) }
            return try value.map { (value) throws(NormCacheError) in try checked(value, key) }
        }
        let storedKey = StorageKey.longKey(for: key, salt: keySalt)
        guard let found = try lmdb({ () throws(LMDBError) in try storedKey.withBytes { (stored) throws(LMDBError) in try txn.get(records, stored) } }) else {
            return nil
        }
        guard let (tail, record) = StorageKey.splitLongValue(try checked(found, key)) else { throw damaged(key) }
        return tail.elementsEqual(key[StorageKey.directLimit...]) ? record : nil
    }

    /// Stores `record` as the bytes of the record `key`.
    func setRecord(_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) throws(NormCacheError) {
        guard key.count > StorageKey.directLimit else { return try lmdb { () throws(LMDBError) in try txn.put(records, key, record) } }
        let storedKey = StorageKey.longKey(for: key, salt: keySalt)
        try storedKey.withBytes { (stored) throws(NormCacheError) in
            if let existing = try lmdb({ () throws(LMDBError) in try txn.get(records, stored) }) {
                guard let (tail, _) = StorageKey.splitLongValue(try checked(existing, key)) else { throw damaged(key) }
                guard tail.elementsEqual(key[StorageKey.directLimit...]) else { throw collision(key) }
            }
            try StorageKey.longValue(for: key, record: record).withBytes { (value) throws(NormCacheError) in
                try lmdb { () throws(LMDBError) in try txn.put(records, stored, value) }
            }
        }
    }

    /// Deletes the record `key`; returns false when there was none.
    func removeRecord(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> Bool {
        let removed: Bool
        if key.count > StorageKey.directLimit {
            guard try record(key) != nil else { return false }
            removed = try lmdb { () throws(LMDBError) in
                try StorageKey.longKey(for: key, salt: keySalt).withBytes { (stored) throws(LMDBError) in try txn.delete(records, stored) }
            }
        } else {
            removed = try lmdb { () throws(LMDBError) in try txn.delete(records, key) }
        }
        if removed { changes?.noteRecord(key) }
        return removed
    }

    /// Deletes every record.
    func removeAllRecords() throws(NormCacheError) {
        guard try recordCount() > 0 else { return }
        try lmdb { () throws(LMDBError) in try txn.empty(records) }
        changes?.noteEverything()
    }

    /// The number of records.
    func recordCount() throws(NormCacheError) -> Int {
        try lmdb { () throws(LMDBError) in try txn.count(records) }
    }

    /// A cursor over the records, closed by `LMDBCursor.close`.
    func cursor() throws(NormCacheError) -> LMDBCursor {
        try lmdb { () throws(LMDBError) in try txn.cursor(records) }
    }

    /// An error naming a damaged record.
    func damaged<Key: Collection>(_ key: Key) -> NormCacheError where Key.Element == UInt8 {
        NormCacheError(.notACache, "the record '\(KeyBytes.preview(key))' in '\(path)' is damaged")
    }

    /// The error for a long record key that cannot be stored because another key has
    /// the same first bytes and hash.
    func collision(_ key: UnsafeRawBufferPointer) -> NormCacheError {
        NormCacheError(.storage, "record key '\(KeyBytes.preview(key))' collides with a stored key of the same first \(StorageKey.directLimit) bytes and hash; it cannot be stored")
    }
}

/// Raised by a write transaction's failing call when the map is full: the write is then
/// run again in a grown map (see `SharedEnvironment.write`) instead of failing.
final class FullMapSignal {
    /// Whether a call found the map full.
    var isRaised = false
}
