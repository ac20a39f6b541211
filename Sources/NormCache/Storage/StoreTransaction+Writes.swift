import Glibc

/// Writes of a batch of records, in ascending key order through one cursor: a new
/// record is encoded straight into the page space LMDB reserves for it, a stored one is
/// found by the same search, and records past the last stored key are appended.
extension StoreTransaction {
    /// A cursor for `insert` and `replace`, closed by `LMDBCursor.close`.
    func writeCursor() throws(NormCacheError) -> LMDBCursor {
        do throws(LMDBStatus) { return try txn.cursor(records) } catch { throw Self.error(error, "mdb_cursor_open", path: path) }
    }

    /// The greatest LMDB key in the store, as its bytes; nil when the store is empty.
    func lastStoredKey(cursor: LMDBCursor) throws(NormCacheError) -> [UInt8]? {
        do throws(LMDBStatus) { return try cursor.last().map { Array($0.key) } } catch { throw Self.error(error, "mdb_cursor_get", path: path) }
    }

    /// Inserts the record `key` with room for `count` bytes, or gives the bytes of the
    /// record stored under it. `appending`: the key is greater than every stored key
    /// (then it is appended, without a search). The room must be filled before the next
    /// call on the transaction.
    func insert(_ key: UnsafeRawBufferPointer, reserving count: Int, cursor: LMDBCursor,
                appending: Bool = false) throws(NormCacheError) -> LMDBCursor.Insertion {
        if appending, key.count <= StorageKey.directLimit {
            do throws(LMDBStatus) {
                if let room = try cursor.append(key, reserving: count) { return .reserved(room) }
            } catch {
                throw Self.error(error, "mdb_cursor_put", path: path)
            }
        }
        guard key.count > StorageKey.directLimit else {
            let insertion: LMDBCursor.Insertion
            do throws(LMDBStatus) {
                insertion = try cursor.insert(key, reserving: count)
            } catch {
                throw Self.error(error, "mdb_cursor_put", path: path)
            }
            guard case .existing(let stored) = insertion else { return insertion }
            return .existing(try checked(stored, key))
        }
        if let existing = try record(key) { return .existing(existing) }
        // A long key: its tail before the record, under the hashed LMDB key.
        let storedKey = StorageKey.longKey(for: key, salt: keySalt)
        let tail = UnsafeRawBufferPointer(rebasing: key[StorageKey.directLimit...])
        let tailLength = Varint.length(UInt64(tail.count)) + tail.count
        let insertion = try storedKey.withBytes { (stored) throws(NormCacheError) -> LMDBCursor.Insertion in
            do throws(LMDBStatus) {
                return try cursor.insert(stored, reserving: tailLength + count)
            } catch {
                throw Self.error(error, "mdb_cursor_put", path: path)
            }
        }
        guard case .reserved(let room) = insertion else {
            throw NormCacheError(.storage, "record key '\(Self.preview(key))' collides with a stored key of the same first \(StorageKey.directLimit) bytes and hash; it cannot be stored")
        }
        let written = Varint.write(UInt64(tail.count), to: room)
        if let base = tail.baseAddress { (room + written).copyMemory(from: base, byteCount: tail.count) }
        return .reserved(room + tailLength)
    }

    /// Stores `record` as the bytes of the record `key`, which exists.
    func replace(_ key: UnsafeRawBufferPointer, with record: UnsafeRawBufferPointer, cursor: LMDBCursor) throws(NormCacheError) {
        guard key.count <= StorageKey.directLimit else { return try setRecord(key, record) }
        do throws(LMDBStatus) { try cursor.put(key, record) } catch { throw Self.error(error, "mdb_cursor_put", path: path) }
    }
}
