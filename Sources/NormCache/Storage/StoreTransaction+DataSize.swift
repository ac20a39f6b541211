/// The size of a cache's data, as a size limit judges it: the bytes of the pages its
/// databases hold in the transaction's view, not the size of the file. The file never
/// shrinks (LMDB keeps the pages freed by a commit and reuses them for later ones), so
/// its size says how large the data once was, not how large it is.
extension StoreTransaction {
    /// LMDB's main database, which names the others (`MAIN_DBI`).
    private static let mainDatabase: LMDBDatabase = 1

    /// The bytes of the pages of the records, the meta database and the main database:
    /// what `CacheOptions.maxBytes` bounds. The commit log is left out: it keeps its
    /// own bounds (`maximumLogEntries`, `maximumLogBytes`), and no eviction shrinks it.
    func dataBytes() throws(NormCacheError) -> Int {
        try lmdb { () throws(LMDBError) in
            try txn.pageBytes(records) + txn.pageBytes(meta) + txn.pageBytes(Self.mainDatabase)
        }
    }

    /// The bytes of the pages of the commit log; 0 when the file has none.
    func logPageBytes() throws(NormCacheError) -> Int {
        guard let log else { return 0 }
        return try lmdb { () throws(LMDBError) in try txn.pageBytes(log) }
    }
}
