import CLMDB
import Glibc

// The one file that calls liblmdb. Everything else in the storage layer talks to
// these small wrappers. LMDB caveats that the wrappers and their callers rely on:
//
// - "A transaction and its cursors must only be used by a single thread, and a thread
//   may only have a single transaction at a time. If MDB_NOTLS is in use, this does
//   not apply to read-only transactions." We open with MDB_NOTLS, so one environment
//   serves read transactions on any thread; write transactions stay on their thread.
// - "mdb_env_set_mapsize ... may only be called if no transactions are active in this
//   process." `RecordStore` takes its access lock exclusively to grow the map.
// - "The maximum key size is 511 bytes" (mdb_env_get_maxkeysize); `StorageKey` maps
//   longer record keys onto LMDB keys of at most that size.
// - Long-lived read transactions stop page reuse; every read here is one short call.
// - "mdb_txn_reset ... keep the transaction handle. mdb_txn_renew() may reuse the
//   handle. This saves allocation overhead ... and also locking overhead if MDB_NOTLS
//   is in use. ... the table slot stays tied to its thread or MDB_txn."
//   `IdleReadTransactions` keeps two such handles between reads.

/// An LMDB status code; unknown codes (errno values included) survive as they are.
struct LMDBStatus: RawRepresentable, Equatable {
    var rawValue: Int32
    init(rawValue: Int32) { self.rawValue = rawValue }

    static let success = LMDBStatus(rawValue: MDB_SUCCESS)
    static let notFound = LMDBStatus(rawValue: MDB_NOTFOUND)
    static let mapFull = LMDBStatus(rawValue: MDB_MAP_FULL)
    static let mapResized = LMDBStatus(rawValue: MDB_MAP_RESIZED)
    static let invalid = LMDBStatus(rawValue: MDB_INVALID)
    static let versionMismatch = LMDBStatus(rawValue: MDB_VERSION_MISMATCH)
    static let incompatible = LMDBStatus(rawValue: MDB_INCOMPATIBLE)
    static let corrupted = LMDBStatus(rawValue: MDB_CORRUPTED)
    static let pageNotFound = LMDBStatus(rawValue: MDB_PAGE_NOTFOUND)
    static let panic = LMDBStatus(rawValue: MDB_PANIC)
    static let readersFull = LMDBStatus(rawValue: MDB_READERS_FULL)

    /// LMDB's own description (it covers errno values too).
    var text: String { String(cString: mdb_strerror(rawValue)) }

    /// Throws unless `code`, returned by `call`, is MDB_SUCCESS.
    @inline(__always)
    static func check(_ code: Int32, _ call: StaticString) throws(LMDBError) {
        if code != MDB_SUCCESS { throw LMDBError(status: LMDBStatus(rawValue: code), call: call) }
    }
}

/// A failed liblmdb call: its status and the name of the call (`mdb_txn_commit`), so
/// that the storage layer maps every failure to a `NormCacheError` in one place.
struct LMDBError: Error {
    /// What LMDB answered.
    var status: LMDBStatus
    /// The liblmdb function that failed.
    var call: StaticString
}

/// Flags of an environment.
struct LMDBEnvironmentFlags: OptionSet {
    var rawValue: UInt32
    static let noSubdirectory = LMDBEnvironmentFlags(rawValue: UInt32(MDB_NOSUBDIR))
    static let readOnly = LMDBEnvironmentFlags(rawValue: UInt32(MDB_RDONLY))
    static let noMetaSync = LMDBEnvironmentFlags(rawValue: UInt32(MDB_NOMETASYNC))
    static let noThreadLocalStorage = LMDBEnvironmentFlags(rawValue: UInt32(MDB_NOTLS))
    static let noLock = LMDBEnvironmentFlags(rawValue: UInt32(MDB_NOLOCK))
}

/// An LMDB environment (`MDB_env`), closed when released.
final class LMDBEnvironment {
    private let handle: OpaquePointer
    /// The page size of the environment, fixed when it was created.
    let pageSize: Int
    /// Read transactions kept, reset, for the next reads.
    private let idleReaders = IdleReadTransactions()
    /// Whether the environment has reader slots enough to keep idle ones.
    private let keepsIdleReaders: Bool

    /// Creates and opens an environment at `path`; files it creates get `mode` (less the umask).
    init(path: String, flags: LMDBEnvironmentFlags, mapSize: Int, maxReaders: UInt32, maxDatabases: UInt32,
         mode: UInt32) throws(LMDBError) {
        var env: OpaquePointer?
        try LMDBStatus.check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw LMDBError(status: LMDBStatus(rawValue: ENOMEM), call: "mdb_env_create") }
        do throws(LMDBError) {
            try LMDBStatus.check(mdb_env_set_mapsize(env, mapSize), "mdb_env_set_mapsize")
            try LMDBStatus.check(mdb_env_set_maxreaders(env, maxReaders), "mdb_env_set_maxreaders")
            try LMDBStatus.check(mdb_env_set_maxdbs(env, maxDatabases), "mdb_env_set_maxdbs")
            try LMDBStatus.check(mdb_env_open(env, path, flags.rawValue, mdb_mode_t(mode)), "mdb_env_open")
        } catch {
            mdb_env_close(env)
            throw error
        }
        handle = env
        keepsIdleReaders = maxReaders >= IdleReadTransactions.minimumReaderSlots
        var stat = MDB_stat()
        mdb_env_stat(env, &stat)
        pageSize = Int(stat.ms_psize)
    }

    deinit {
        dropIdleReaders()
        mdb_env_close(handle)
    }

    /// Aborts the read transactions kept between reads, releasing their reader slots.
    private func dropIdleReaders() {
        for txn in idleReaders.takeAll() { mdb_txn_abort(txn) }
    }

    /// Releases the reader slots no read needs, when every slot is taken: those of
    /// processes that died holding them, and this process's kept transactions.
    private func releaseSpareReaderSlots() {
        clearStaleReaders()
        dropIdleReaders()
    }

    /// The environment's `MDB_envinfo`.
    func info() -> LMDBInfo {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info
    }

    /// The file descriptor of the data file.
    func dataFileDescriptor() throws(LMDBError) -> Int32 {
        var fd: Int32 = -1
        try LMDBStatus.check(mdb_env_get_fd(handle, &fd), "mdb_env_get_fd")
        return fd
    }

    /// Sets the map size; 0 adopts the size another process has grown the map to.
    /// No transaction of this process may be active; the kept ones are aborted first.
    func setMapSize(_ size: Int) throws(LMDBError) {
        dropIdleReaders()
        try LMDBStatus.check(mdb_env_set_mapsize(handle, size), "mdb_env_set_mapsize")
    }

    /// Releases the reader slots of processes that died holding them (`mdb_reader_check`),
    /// so their old snapshots stop pinning pages.
    func clearStaleReaders() {
        var dead: Int32 = 0
        mdb_reader_check(handle, &dead)
    }

    /// The reader slots in use by every process (`mdb_reader_list`).
    func readers() -> ReaderTable {
        var table = ReaderTable()
        mdb_reader_list(handle, { line, context in
            guard let line, let context else { return 0 }
            context.assumingMemoryBound(to: ReaderTable.self).pointee.add(line: line)
            return 0
        }, &table)
        return table
    }

    /// Writes a consistent copy of the environment, as of one read transaction, to the
    /// new file `path`, created with `O_EXCL` and the permission bits of the data file
    /// (less the umask; `mdb_env_copy2` would make it 0666), then synced to disk
    /// (`mdb_env_copyfd2` and `fsync`). `compacting` (`MDB_CP_COMPACT`) leaves out free
    /// pages and renumbers the rest: "This option may be slower since it may walk the
    /// entire tree". The file is created before the read transaction begins: when the
    /// begin fails (as `MDB_MAP_RESIZED` after another process grew the map), an empty
    /// file stays. When that begin finds every reader slot taken, the spare ones (dead
    /// readers', the kept transactions) are released and the copy tried once more.
    func copy(to path: String, compacting: Bool) throws(LMDBError) {
        var source = stat()
        let mode = try fstat(dataFileDescriptor(), &source) == 0 ? source.st_mode & 0o777 : 0o600
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw LMDBError(status: LMDBStatus(rawValue: errno), call: "open") }
        defer { close(fd) }
        let flags = compacting ? UInt32(MDB_CP_COMPACT) : 0
        var status = StorageFaults.injected(at: .copy) ?? mdb_env_copyfd2(handle, fd, flags)
        if status == MDB_READERS_FULL {
            // The copy's read transaction, which LMDB begins before it writes anything,
            // found no slot: the kept ones may be what holds them.
            releaseSpareReaderSlots()
            status = StorageFaults.injected(at: .copy) ?? mdb_env_copyfd2(handle, fd, flags)
        }
        try LMDBStatus.check(status, "mdb_env_copyfd2")
        guard fsync(fd) == 0 else { throw LMDBError(status: LMDBStatus(rawValue: errno), call: "fsync") }
    }

    /// Turns `MDB_NOMETASYNC` on or off.
    func setNoMetaSync(_ on: Bool) throws(LMDBError) {
        try LMDBStatus.check(mdb_env_set_flags(handle, UInt32(MDB_NOMETASYNC), on ? 1 : 0), "mdb_env_set_flags")
    }

    /// Begins a transaction. When every reader slot is taken, the slots of processes
    /// that died holding them are released and the begin tried once more: a process
    /// that outlives a killed reader does not stay locked out of reading.
    ///
    /// A read transaction is begun again when its snapshot may be torn: LMDB 0.9 reads
    /// the last committed transaction id, then copies the meta page of that id's slot;
    /// a reader preempted in between while two commits land copies the slot's newer
    /// meta under the older id, and the next read can then see an older snapshot than
    /// this one (found by tests/c/test_invariants.c). Once the begin is done, a newest
    /// id less than two past the snapshot's proves the slot was not rewritten.
    func begin(readOnly: Bool) throws(LMDBError) -> LMDBTransaction {
        readOnly ? try beginRead().txn : try begin(flags: 0, at: .beginWrite)
    }

    /// `begin(readOnly: true)`, with the environment's info as the begin read it after
    /// the snapshot (so that the caller need not ask again for the pages in use). A
    /// transaction kept from an earlier read is renewed rather than one begun; end it
    /// with `endRead`, which keeps it for the next.
    func beginRead() throws(LMDBError) -> (txn: LMDBTransaction, info: LMDBInfo) {
        for _ in 0..<Self.snapshotAttempts {
            let txn = try begin(flags: UInt32(MDB_RDONLY), at: .beginRead)
            var info = MDB_envinfo()
            mdb_env_info(handle, &info)
            if info.me_last_txnid < mdb_txn_id(txn.handle) + 2 { return (txn, info) }
            endRead(txn)
        }
        throw LMDBError(status: LMDBStatus(rawValue: EBUSY), call: "mdb_txn_begin")
    }

    /// Ends the read transaction `txn` of this environment: reset and kept for the next
    /// read when there is room (`IdleReadTransactions`; not in an environment of fewer
    /// than `IdleReadTransactions.minimumReaderSlots`), else aborted. Its cursors must be
    /// closed first.
    /// Never inlined: inlined into `SharedEnvironment`'s read, it made the optimizer stop
    /// inlining the callers' closures there (callgrind: four copies of an operation
    /// read's context and 30 more retains and releases a read).
    @inline(never)
    func endRead(_ txn: LMDBTransaction) {
        mdb_txn_reset(txn.handle)
        if !keepsIdleReaders || !idleReaders.keep(txn.handle) { mdb_txn_abort(txn.handle) }
    }

    /// `mdb_txn_begin` (for a read, a kept transaction renewed when there is one), begun
    /// again once after the slots of dead readers, and the kept ones, are released when
    /// every reader slot is taken.
    private func begin(flags: UInt32, at point: StorageFaults.Point) throws(LMDBError) -> LMDBTransaction {
        var txn: OpaquePointer?
        var status = StorageFaults.injected(at: point) ?? start(flags: flags, &txn)
        if status == MDB_READERS_FULL {
            releaseSpareReaderSlots()
            status = StorageFaults.injected(at: point) ?? start(flags: flags, &txn)
        }
        try LMDBStatus.check(status, "mdb_txn_begin")
        guard let txn else { throw LMDBError(status: LMDBStatus(rawValue: ENOMEM), call: "mdb_txn_begin") }
        return LMDBTransaction(handle: txn)
    }

    /// A kept read transaction renewed, when `flags` ask for a read and one is kept (a
    /// renew that fails, after another process grew the map, aborts it, and the begin
    /// that follows answers the same); else `mdb_txn_begin`.
    private func start(flags: UInt32, _ txn: inout OpaquePointer?) -> Int32 {
        if flags == UInt32(MDB_RDONLY), let kept = idleReaders.take() {
            if mdb_txn_renew(kept) == MDB_SUCCESS {
                txn = kept
                return MDB_SUCCESS
            }
            mdb_txn_abort(kept)
        }
        return mdb_txn_begin(handle, nil, flags, &txn)
    }

    /// Begins a write transaction nested in `parent` (a write transaction of this
    /// environment, on this thread): its changes join the parent's when it commits and
    /// are dropped when it aborts, the parent's earlier work staying as it was. The
    /// parent may do nothing else until the child ends.
    func begin(nestedIn parent: LMDBTransaction) throws(LMDBError) -> LMDBTransaction {
        var txn: OpaquePointer?
        try LMDBStatus.check(StorageFaults.injected(at: .beginWrite) ?? mdb_txn_begin(handle, parent.handle, 0, &txn), "mdb_txn_begin")
        guard let txn else { throw LMDBError(status: LMDBStatus(rawValue: ENOMEM), call: "mdb_txn_begin") }
        return LMDBTransaction(handle: txn)
    }

    /// How many times a read transaction is begun before giving up on a whole snapshot
    /// (each retry needs two more commits to land within a begin of a microsecond).
    private static var snapshotAttempts: Int { 1000 }
}

/// A named database handle of an environment.
typealias LMDBDatabase = MDB_dbi

/// What `mdb_env_info` tells of an environment: its map, last page and last commit.
typealias LMDBInfo = MDB_envinfo

/// An LMDB transaction (`MDB_txn`); ended by `commit` or `abort`, exactly once.
struct LMDBTransaction {
    fileprivate let handle: OpaquePointer

    /// The transaction's id: of a read transaction, the commit its snapshot shows; of
    /// a write transaction, the id its commit will have.
    var id: UInt64 { UInt64(mdb_txn_id(handle)) }

    /// Opens a named database, creating it when `create` is set.
    func open(database name: String?, create: Bool) throws(LMDBError) -> LMDBDatabase {
        var dbi: MDB_dbi = 0
        try LMDBStatus.check(mdb_dbi_open(handle, name, create ? UInt32(MDB_CREATE) : 0, &dbi), "mdb_dbi_open")
        return dbi
    }

    /// The flags a database was created with.
    func flags(_ database: LMDBDatabase) throws(LMDBError) -> UInt32 {
        var flags: UInt32 = 0
        try LMDBStatus.check(mdb_dbi_flags(handle, database, &flags), "mdb_dbi_flags")
        return flags
    }

    /// The value stored under `key`, in place in the map (valid until the transaction
    /// ends or writes), or nil.
    func get(_ database: LMDBDatabase, _ key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer? {
        var mdbKey = MDB_val(key)
        var value = MDB_val()
        let code = mdb_get(handle, database, &mdbKey, &value)
        if code == MDB_NOTFOUND { return nil }
        try LMDBStatus.check(code, "mdb_get")
        return value.bytes
    }

    /// Stores `value` under `key`.
    func put(_ database: LMDBDatabase, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(LMDBError) {
        var mdbKey = MDB_val(key)
        var mdbValue = MDB_val(value)
        try LMDBStatus.check(StorageFaults.injected(at: .put) ?? mdb_put(handle, database, &mdbKey, &mdbValue, 0), "mdb_put")
    }

    /// Deletes `key`; returns false when it was not there.
    func delete(_ database: LMDBDatabase, _ key: UnsafeRawBufferPointer) throws(LMDBError) -> Bool {
        var mdbKey = MDB_val(key)
        let code = mdb_del(handle, database, &mdbKey, nil)
        if code == MDB_NOTFOUND { return false }
        try LMDBStatus.check(code, "mdb_del")
        return true
    }

    /// Deletes every entry of a database, keeping the database.
    func empty(_ database: LMDBDatabase) throws(LMDBError) {
        try LMDBStatus.check(mdb_drop(handle, database, 0), "mdb_drop")
    }

    /// The number of entries of a database.
    func count(_ database: LMDBDatabase) throws(LMDBError) -> Int {
        var stat = MDB_stat()
        try LMDBStatus.check(mdb_stat(handle, database, &stat), "mdb_stat")
        return Int(stat.ms_entries)
    }

    /// The bytes of the pages a database holds in this transaction's view: its branch,
    /// leaf and overflow pages times the page size (`mdb_stat`).
    func pageBytes(_ database: LMDBDatabase) throws(LMDBError) -> Int {
        var stat = MDB_stat()
        try LMDBStatus.check(mdb_stat(handle, database, &stat), "mdb_stat")
        return (stat.ms_branch_pages + stat.ms_leaf_pages + stat.ms_overflow_pages) * Int(stat.ms_psize)
    }

    /// Opens a cursor, closed by `LMDBCursor.close`.
    func cursor(_ database: LMDBDatabase) throws(LMDBError) -> LMDBCursor {
        var cursor: OpaquePointer?
        try LMDBStatus.check(mdb_cursor_open(handle, database, &cursor), "mdb_cursor_open")
        guard let cursor else { throw LMDBError(status: LMDBStatus(rawValue: ENOMEM), call: "mdb_cursor_open") }
        return LMDBCursor(handle: cursor)
    }

    /// Commits the transaction; it has ended when this returns, even with an error.
    func commit() throws(LMDBError) {
        if let injected = StorageFaults.injected(at: .commit) {
            // A failed commit ends the transaction, as mdb_txn_commit's does.
            mdb_txn_abort(handle)
            try LMDBStatus.check(injected, "mdb_txn_commit")
        }
        try LMDBStatus.check(mdb_txn_commit(handle), "mdb_txn_commit")
    }

    /// Abandons the transaction.
    func abort() {
        mdb_txn_abort(handle)
    }
}

/// An LMDB cursor over one database of a transaction.
struct LMDBCursor {
    fileprivate let handle: OpaquePointer

    /// Positions at `key` and returns its entry, the key as LMDB holds it (`MDB_SET_KEY`:
    /// a search without setting up a cursor each time, as `mdb_get` does); nil when the
    /// key is not stored.
    @inline(__always)
    func findEntry(_ key: UnsafeRawBufferPointer) throws(LMDBError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var mdbKey = MDB_val(key)
        return try move(&mdbKey, MDB_SET_KEY)
    }

    /// Positions at the first key at or after `key`; nil past the end.
    func seek(atOrAfter key: UnsafeRawBufferPointer) throws(LMDBError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var mdbKey = MDB_val(key)
        return try move(&mdbKey, MDB_SET_RANGE)
    }

    /// Positions at the first key; nil when the database is empty.
    func first() throws(LMDBError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var mdbKey = MDB_val()
        return try move(&mdbKey, MDB_FIRST)
    }

    /// Moves to the next key; nil past the end.
    @inline(__always)
    func next() throws(LMDBError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var mdbKey = MDB_val()
        return try move(&mdbKey, MDB_NEXT)
    }

    /// Inserts `key` with room for a value of `count` bytes unless the key exists
    /// (`MDB_NOOVERWRITE | MDB_RESERVE`): one search for both answers. Keys given in
    /// ascending order find their page at once (a cursor searches from its position).
    func insert(_ key: UnsafeRawBufferPointer, reserving count: Int) throws(LMDBError) -> RecordPlacement {
        var mdbKey = MDB_val(key)
        var value = MDB_val(mv_size: count, mv_data: nil)
        let code = StorageFaults.injected(at: .put) ?? mdb_cursor_put(handle, &mdbKey, &value, UInt32(MDB_NOOVERWRITE | MDB_RESERVE))
        if code == MDB_KEYEXIST { return .existing(value.bytes) }
        try LMDBStatus.check(code, "mdb_cursor_put")
        guard let start = value.mv_data else { throw LMDBError(status: LMDBStatus(rawValue: EIO), call: "mdb_cursor_put") }
        return .reserved(start)
    }

    /// Appends `key`, greater than every key of the database, with room for a value of
    /// `count` bytes (`MDB_APPEND | MDB_RESERVE`): no search, and pages filled whole
    /// instead of split in half. Nil (nothing changed) when the key is not greater than
    /// the last one.
    func append(_ key: UnsafeRawBufferPointer, reserving count: Int) throws(LMDBError) -> UnsafeMutableRawPointer? {
        var mdbKey = MDB_val(key)
        var value = MDB_val(mv_size: count, mv_data: nil)
        let code = StorageFaults.injected(at: .put) ?? mdb_cursor_put(handle, &mdbKey, &value, UInt32(MDB_APPEND | MDB_RESERVE))
        if code == MDB_KEYEXIST { return nil }
        try LMDBStatus.check(code, "mdb_cursor_put")
        guard let start = value.mv_data else { throw LMDBError(status: LMDBStatus(rawValue: EIO), call: "mdb_cursor_put") }
        return start
    }

    /// Positions at the last key; nil when the database is empty.
    func last() throws(LMDBError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var mdbKey = MDB_val()
        return try move(&mdbKey, MDB_LAST)
    }

    /// Stores `value` under `key`, replacing what is there.
    func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(LMDBError) {
        var mdbKey = MDB_val(key)
        var mdbValue = MDB_val(value)
        try LMDBStatus.check(StorageFaults.injected(at: .put) ?? mdb_cursor_put(handle, &mdbKey, &mdbValue, 0), "mdb_cursor_put")
    }

    /// Deletes the entry at the cursor; `next` then gives the entry after it.
    func deleteCurrent() throws(LMDBError) {
        try LMDBStatus.check(mdb_cursor_del(handle, 0), "mdb_cursor_del")
    }

    /// Closes the cursor (before its transaction ends).
    func close() {
        mdb_cursor_close(handle)
    }

    @inline(__always)
    private func move(_ key: inout MDB_val, _ op: MDB_cursor_op) throws(LMDBError) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        var value = MDB_val()
        let code = mdb_cursor_get(handle, &key, &value, op)
        if code == MDB_NOTFOUND { return nil }
        try LMDBStatus.check(code, "mdb_cursor_get")
        return (key.bytes, value.bytes)
    }
}

extension MDB_val {
    /// A value pointing at `bytes` (LMDB does not write through it).
    init(_ bytes: UnsafeRawBufferPointer) {
        self.init(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
    }

    /// The bytes the value points at.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: mv_data, count: mv_size)
    }
}
