/// Lookups of records by key in one transaction through one cursor, opened at the first
/// lookup: each is an `MDB_SET` search, without setting up a cursor every time as
/// `mdb_get` does. A reader keeps one for all the records it follows.
struct RecordLookup: ~Copyable {
    /// The transaction the records are read in.
    let txn: StoreTransaction
    private var cursor: LMDBCursor?

    /// Lookups in `txn`.
    init(_ txn: StoreTransaction) {
        self.txn = txn
    }

    deinit {
        cursor?.close()
    }

    /// The stored bytes of the record `key`, or nil.
    @inline(__always)
    mutating func record(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UnsafeRawBufferPointer? {
        if cursor == nil { cursor = try txn.cursor() }
        return try txn.record(key, cursor: cursor)
    }
}
