/// The commit log: a bounded run of the most recent commits' change entries (opaque
/// bytes here, `ChangeSet`'s), keyed by commit id (the LMDB transaction id, 8 bytes
/// big-endian, so that key order is commit order), written in the same transaction as
/// the data they describe. Another process learns from it exactly what changed since
/// the commit it last saw.
///
/// The log keeps at most `maximumLogEntries` entries and `maximumLogBytes` bytes of
/// pages; a commit that takes it past either bound trims the oldest entries until it holds
/// no more than `trimmedShare` of both, so that trimming, and the floor it moves, is
/// written in about one commit of every 128, not in each. The meta entry `log_floor` is
/// the newest commit whose entry may be gone (trimmed, or before the log existed): a
/// reader that last saw a commit below it has fallen behind the log. A commit that stays
/// within the bounds writes its entry and nothing else beside its data.
extension StoreTransaction {
    /// The most entries the log keeps.
    static let maximumLogEntries = 1024
    /// The most bytes of pages the log keeps (`mdb_stat`'s pages times the page size).
    static let maximumLogBytes = 16 << 20
    /// The share of each bound a trimmed log keeps, in eighths.
    static let trimmedShare = 7

    /// Appends `entry` as the log entry of this write transaction's commit, and trims
    /// the oldest entries when the log has passed a bound.
    func appendToCommitLog(_ entry: UnsafeRawBufferPointer) throws(NormCacheError) {
        guard let log else { return }
        try restartCommitLogIfRenumbered(log)
        try lmdb { () throws(LMDBError) in
            try Self.logKey(txn.id).withBytes { (key) throws(LMDBError) in try txn.put(log, key, entry) }
        }
        var entries = try lmdb { () throws(LMDBError) in try txn.count(log) }
        guard try logPassedBounds(entries: entries, entryBound: Self.maximumLogEntries,
                                  byteBound: Self.maximumLogBytes) else { return }
        let keptEntries = Self.maximumLogEntries * Self.trimmedShare / 8
        let keptBytes = Self.maximumLogBytes * Self.trimmedShare / 8
        let cursor = try lmdb { () throws(LMDBError) in try txn.cursor(log) }
        defer { cursor.close() }
        var floor = try logFloor()
        while entries > 1, try logPassedBounds(entries: entries, entryBound: keptEntries, byteBound: keptBytes),
              let (key, _) = try lmdb({ () throws(LMDBError) in try cursor.first() }) {
            guard let commit = Self.commit(key) else { throw damaged(key) }
            floor = max(floor, commit)
            try lmdb { () throws(LMDBError) in try cursor.deleteCurrent() }
            entries -= 1
        }
        try setLogFloor(floor)
    }

    /// Whether the log holds more than `entryBound` entries (it holds `entries`) or more
    /// than `byteBound` bytes of pages.
    private func logPassedBounds(entries: Int, entryBound: Int, byteBound: Int) throws(NormCacheError) -> Bool {
        if entries > entryBound { return true }
        return try logPageBytes() > byteBound
    }

    /// Empties the log when its ids are not all below this transaction's, which happens
    /// in a copy (a compacting copy, `normcache compact` or `mdb_copy -c`, numbers its
    /// commits from 1 again) and after a damaged floor: commits from here on are logged
    /// afresh, and a reader of an older id is told the log is incomplete.
    private func restartCommitLogIfRenumbered(_ log: LMDBDatabase) throws(NormCacheError) {
        let id = txn.id
        let cursor = try lmdb { () throws(LMDBError) in try txn.cursor(log) }
        let last = try lmdb { () throws(LMDBError) in try cursor.last() }.flatMap { Self.commit($0.key) }
        cursor.close()
        guard try logFloor() >= id || (last ?? 0) >= id else { return }
        try lmdb { () throws(LMDBError) in try txn.empty(log) }
        try setLogFloor(id - 1)
    }

    /// The id of the newest commit whose entry the log may lack; 0 without a log.
    /// A damaged floor counts as the newest possible commit: every reader is behind.
    func logFloor() throws(NormCacheError) -> UInt64 {
        guard let value = try metaValue("log_floor") else { return 0 }
        return Self.littleEndian(value) ?? .max
    }

    /// Starts the log of a file that has none: commits up to this transaction's are not
    /// in it, unless the file is `new` (this transaction creates it, and no commit before
    /// changed data).
    func startCommitLog(new: Bool) throws(NormCacheError) {
        try setLogFloor(new ? txn.id - 1 : txn.id)
    }

    /// Whether the file has a commit log (one opened read-only before any writer of
    /// this version created it has none).
    var hasCommitLog: Bool { log != nil }

    /// Calls `visit` with the id and entry of each logged commit after `commit`, in
    /// commit order.
    func forEachLoggedCommit(after commit: UInt64,
                             _ visit: (UInt64, UnsafeRawBufferPointer) throws(NormCacheError) -> Void) throws(NormCacheError) {
        guard let log else { return }
        let cursor = try lmdb { () throws(LMDBError) in try txn.cursor(log) }
        defer { cursor.close() }
        guard commit < .max else { return }
        var entry = try Self.logKey(commit + 1).withBytes { (start) throws(NormCacheError) in
            try lmdb { () throws(LMDBError) in try cursor.seek(atOrAfter: start) }
        }
        while let (key, value) = entry {
            guard let id = Self.commit(key) else { throw damaged(key) }
            try visit(id, try checked(value, key))
            entry = try lmdb { () throws(LMDBError) in try cursor.next() }
        }
    }

    private func setLogFloor(_ commit: UInt64) throws(NormCacheError) {
        try Self.littleEndianBytes(commit).withBytes { (value) throws(NormCacheError) in try setMetaValue("log_floor", value) }
    }

    /// The log key of commit `id`: its 8 bytes, most significant first.
    private static func logKey(_ id: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: id >> UInt64(56 - 8 * $0)) }
    }

    /// The commit id of a log key, nil when it is not 8 bytes.
    private static func commit(_ key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == 8 else { return nil }
        return key.reduce(0) { ($0 << 8) | UInt64($1) }
    }

    private static func littleEndian(_ value: UnsafeRawBufferPointer) -> UInt64? {
        guard value.count == 8 else { return nil }
        return value.reversed().reduce(0) { ($0 << 8) | UInt64($1) }
    }

    private static func littleEndianBytes(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
    }
}
