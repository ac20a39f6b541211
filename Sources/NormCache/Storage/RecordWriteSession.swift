/// What placing a record key in a write found.
enum RecordPlacement {
    /// The key was new: room for its record is reserved here, to be filled before the
    /// next call on the transaction.
    case reserved(UnsafeMutableRawPointer)
    /// The record is stored with these bytes; nothing changed.
    case existing(UnsafeRawBufferPointer)
}

/// The writes of a batch of records in one write transaction, in ascending key order
/// through one cursor: a new record is encoded straight into the page space LMDB
/// reserves for it, a stored one is found by the same search, and records past the last
/// stored key are appended without a search.
struct RecordWriteSession: ~Copyable {
    private let txn: StoreTransaction
    private let cursor: LMDBCursor
    /// The greatest LMDB key stored when the session began; nil when the store was empty.
    private let lastStored: [UInt8]?
    /// Whether the keys placed from now on are greater than every stored key.
    private var appending: Bool

    /// A session of the write transaction `txn`.
    init(_ txn: StoreTransaction) throws(NormCacheError) {
        let cursor = try txn.cursor()
        let lastStored: [UInt8]?
        do throws(LMDBError) {
            lastStored = try cursor.last().map { Array($0.key) }
        } catch {
            cursor.close()
            throw txn.failure(error)
        }
        self.txn = txn
        self.cursor = cursor
        self.lastStored = lastStored
        appending = lastStored == nil
    }

    deinit {
        cursor.close()
    }

    /// Finds the record `key` or makes room for a new one of `count` bytes. Keys come in
    /// ascending order; one greater than every stored key is appended, without a search.
    mutating func place(_ key: UnsafeRawBufferPointer, reserving count: Int) throws(NormCacheError) -> RecordPlacement {
        if !appending, let lastStored {
            appending = lastStored.withUnsafeBytes { KeyBytes.compare(key, $0) > 0 }
        }
        guard key.count > StorageKey.directLimit else {
            if appending, let room = try txn.lmdb({ () throws(LMDBError) in try cursor.append(key, reserving: count) }) {
                return .reserved(room)
            }
            let placement = try txn.lmdb { () throws(LMDBError) in try cursor.insert(key, reserving: count) }
            guard case .existing(let stored) = placement else { return placement }
            return .existing(try txn.checked(stored, key))
        }
        if let existing = try txn.record(key) { return .existing(existing) }
        // A long key: its tail before the record, under the hashed LMDB key.
        let storedKey = StorageKey.longKey(for: key, salt: txn.keySalt)
        let tail = UnsafeRawBufferPointer(rebasing: key[StorageKey.directLimit...])
        let tailLength = Varint.length(UInt64(tail.count)) + tail.count
        let placement = try storedKey.withBytes { (stored) throws(NormCacheError) -> RecordPlacement in
            try txn.lmdb { () throws(LMDBError) in try cursor.insert(stored, reserving: tailLength + count) }
        }
        guard case .reserved(let room) = placement else { throw txn.collision(key) }
        let written = Varint.write(UInt64(tail.count), to: room)
        if let base = tail.baseAddress { (room + written).copyMemory(from: base, byteCount: tail.count) }
        return .reserved(room + tailLength)
    }

    /// Stores `record` as the bytes of the record `key`, which `place` found stored.
    func replace(_ key: UnsafeRawBufferPointer, with record: UnsafeRawBufferPointer) throws(NormCacheError) {
        guard key.count <= StorageKey.directLimit else { return try txn.setRecord(key, record) }
        try txn.lmdb { () throws(LMDBError) in try cursor.put(key, record) }
    }
}
