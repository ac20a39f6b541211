import Glibc

/// Record bytes by record key, inside one LMDB transaction of a `RecordStore`.
/// Record keys are UTF-8 bytes of any length (see `StorageKey`); record bytes are
/// opaque here. Values returned point into the map and stay valid until the
/// transaction ends or writes.
struct StoreTransaction {
    let txn: LMDBTransaction
    let records: LMDBDatabase
    /// The cache path, for error messages.
    let path: String
    /// The salt of the hashes of long keys.
    let keySalt: UInt64
    /// The pages of the file in use, as mapped; values LMDB returns from the map must
    /// lie inside (a damaged file could claim sizes past its end).
    let mapped: UnsafeRawBufferPointer?

    /// Checks that a value LMDB returned lies in the mapped pages or outside the map
    /// altogether (a page this write transaction changed lives in memory of its own).
    func checked(_ value: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UnsafeRawBufferPointer {
        guard let mapped, let start = mapped.baseAddress, let valueStart = value.baseAddress else { return value }
        let mapEnd = start + mapped.count
        if valueStart >= start && valueStart < mapEnd && value.count > mapEnd - valueStart { throw damaged(key) }
        return value
    }

    /// The stored bytes of the record `key`, or nil; found with `cursor` when given (a
    /// reader's, kept for all its lookups).
    func record(_ key: UnsafeRawBufferPointer, cursor: LMDBCursor? = nil) throws(NormCacheError) -> UnsafeRawBufferPointer? {
        do {
            guard key.count > StorageKey.directLimit else {
                let value = try cursor.map { (cursor) throws(LMDBStatus) in try cursor.find(key) } ?? txn.get(records, key)
                return try value.map { (value) throws(NormCacheError) in try checked(value, key) }
            }
            let storedKey = StorageKey.longKey(for: key, salt: keySalt)
            guard let found = try storedKey.withBytes({ stored throws(LMDBStatus) in try txn.get(records, stored) }) else { return nil }
            let value = try checked(found, key)
            guard let (tail, record) = StorageKey.splitLongValue(value) else { throw damaged(key) }
            return tail.elementsEqual(key[StorageKey.directLimit...]) ? record : nil
        } catch let error as NormCacheError {
            throw error
        } catch {
            throw Self.error(error as? LMDBStatus ?? LMDBStatus(rawValue: EIO), "mdb_get", path: path)
        }
    }

    /// Stores `record` as the bytes of the record `key`.
    func setRecord(_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) throws(NormCacheError) {
        do {
            guard key.count > StorageKey.directLimit else { return try txn.put(records, key, record) }
            let storedKey = StorageKey.longKey(for: key, salt: keySalt)
            try storedKey.withBytes { stored throws in
                if let existing = try txn.get(records, stored) {
                    guard let (tail, _) = StorageKey.splitLongValue(try checked(existing, key)) else { throw damaged(key) }
                    guard tail.elementsEqual(key[StorageKey.directLimit...]) else {
                        throw NormCacheError(.storage, "record key '\(Self.preview(key))' collides with a stored key of the same first \(StorageKey.directLimit) bytes and hash; it cannot be stored")
                    }
                }
                try StorageKey.longValue(for: key, record: record).withBytes { value throws in
                    try txn.put(records, stored, value)
                }
            }
        } catch let error as NormCacheError {
            throw error
        } catch {
            throw Self.error(error as? LMDBStatus ?? LMDBStatus(rawValue: EIO), "mdb_put", path: path)
        }
    }

    /// A cursor over the records for `record(_:cursor:)`, closed by `LMDBCursor.close`.
    func readCursor() throws(NormCacheError) -> LMDBCursor {
        do throws(LMDBStatus) { return try txn.cursor(records) } catch { throw Self.error(error, "mdb_cursor_open", path: path) }
    }

    /// Deletes the record `key`; returns false when there was none.
    func removeRecord(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> Bool {
        guard key.count > StorageKey.directLimit else {
            do throws(LMDBStatus) { return try txn.delete(records, key) } catch { throw Self.error(error, "mdb_del", path: path) }
        }
        guard try record(key) != nil else { return false }
        do throws(LMDBStatus) {
            return try StorageKey.longKey(for: key, salt: keySalt).withBytes { stored throws(LMDBStatus) in try txn.delete(records, stored) }
        } catch {
            throw Self.error(error, "mdb_del", path: path)
        }
    }

    /// Deletes every record.
    func removeAllRecords() throws(NormCacheError) {
        do throws(LMDBStatus) { try txn.empty(records) } catch { throw Self.error(error, "mdb_drop", path: path) }
    }

    /// The number of records.
    func recordCount() throws(NormCacheError) -> Int {
        do throws(LMDBStatus) { return try txn.count(records) } catch { throw Self.error(error, "mdb_stat", path: path) }
    }

    /// An error naming a damaged record.
    func damaged<Key: Collection>(_ key: Key) -> NormCacheError where Key.Element == UInt8 {
        NormCacheError(.notACache, "the record '\(Self.preview(key))' in '\(path)' is damaged")
    }

    /// A record key for messages, cut short when long.
    static func preview<Key: Collection>(_ key: Key) -> String where Key.Element == UInt8 {
        let shown = String(decoding: key.prefix(80), as: UTF8.self)
        return key.count > 80 ? "\(shown)… (\(key.count) bytes)" : shown
    }

    /// The error for an LMDB failure during `operation`. A full map becomes the
    /// store-internal `.mapFull`, which `RecordStore.write` handles by growing the map.
    static func error(_ status: LMDBStatus, _ operation: String, path: String) -> NormCacheError {
        switch status {
        case .mapFull:
            return NormCacheError(.mapFull, "the map of '\(path)' is full")
        case .corrupted, .pageNotFound, .panic, .invalid, .versionMismatch, .incompatible:
            return NormCacheError(.notACache, "'\(path)' is damaged: \(operation) failed: \(status.text)")
        case .readersFull:
            return NormCacheError(.storage, "\(operation) on '\(path)' failed: all reader slots are in use (raise max_readers): \(status.text)")
        case LMDBStatus(rawValue: ENOSPC):
            return NormCacheError(.storage, "\(operation) on '\(path)' failed: the disk is full")
        default:
            return NormCacheError(.storage, "\(operation) on '\(path)' failed: \(status.text)")
        }
    }
}

extension NormCacheError.Code {
    /// Internal to the storage layer: the map is full and the write is retried after
    /// growing it. It never leaves `SharedEnvironment`.
    static let mapFull = NormCacheError.Code(rawValue: Int32.min)
}
