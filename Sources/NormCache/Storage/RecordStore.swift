/// One handle's view of a cache file: the file's shared environment (see
/// `SharedEnvironment`), this handle's options, and whether it is closed.
final class RecordStore: @unchecked Sendable {
    /// The path of the cache file.
    let path: String
    /// The options the handle was opened with.
    let options: CacheOptions

    /// What every write transaction of this handle checks before its work (see
    /// `write`), or nil.
    private let writeCheck: WriteCheck?
    /// What every committing write transaction of this handle runs after its work (see
    /// `write`), or nil.
    private let writeFinish: WriteCheck?
    private let shared: SharedEnvironment
    /// What this handle has read and written (`NormalizedCache.metrics`).
    let counters = HandleCounters()
    private let state = ReadWriteLock()
    private var isClosed = false

    /// A check a write transaction runs before its work; its error ends the write, and
    /// nothing is written.
    typealias WriteCheck = @Sendable (StoreTransaction) throws(NormCacheError) -> Void

    /// Opens (creating unless read-only) the cache file at `path`; checks that it is a
    /// whole normcache cache of a format this library reads. Every write of the handle
    /// runs `writeCheck` first, unless it says it is not `checked`, and every committing
    /// write runs `writeFinish` after its work.
    init(path: String, options: CacheOptions, writeCheck: WriteCheck? = nil, writeFinish: WriteCheck? = nil) throws(NormCacheError) {
        guard !path.isEmpty else { throw NormCacheError(.invalidArgument, "empty cache path") }
        guard !path.utf8.contains(0) else { throw NormCacheError(.invalidArgument, "cache path contains a NUL byte") }
        self.path = path
        self.options = options
        self.writeCheck = writeCheck
        self.writeFinish = writeFinish
        shared = try EnvironmentRegistry.acquire(path: path, options: options)
    }

    /// The format version of the file.
    var formatVersion: Int { Int(SharedEnvironment.formatVersion) }

    /// Whether this process opened the handle (not a parent before fork()).
    var belongsToThisProcess: Bool { shared.belongsToThisProcess }

    /// Closes the handle once its calls in progress end, and a transaction another
    /// thread has open on it; rolls back the calling thread's own transaction on it.
    /// Returns false when it was already closed. The file's environment closes with its
    /// last handle.
    ///
    /// A store inherited through fork() is closed in the child without its lock: a
    /// thread of the parent inside a call at the fork holds that lock in the child for
    /// ever, and the child's calls on the store are refused anyway (`SharedEnvironment`).
    func close() -> Bool {
        if let open = ownTransaction { rollBack(open) }
        let wasOpen = shared.belongsToThisProcess ? state.withExclusiveAccess(markClosed) : markClosed()
        if wasOpen { EnvironmentRegistry.release(shared) }
        return wasOpen
    }

    /// Marks the store closed; returns whether it was open.
    private func markClosed() -> Bool {
        defer { isClosed = true }
        return !isClosed
    }

    deinit {
        if !isClosed { EnvironmentRegistry.release(shared) }
    }

    /// Runs `body` in a read transaction; inside the calling thread's transaction on
    /// this handle, in that transaction (it sees its writes).
    func read<R>(_ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        if let open = ownTransaction { return try shared.read(in: open.txn, body) }
        return try holdingOpen { () throws(NormCacheError) in try shared.read(body) }
    }

    /// Runs `body` in a write transaction and commits it (unless not `committing`: then
    /// what `body` wrote is seen only by itself and dropped); on any error nothing is
    /// written (see `SharedEnvironment.write`). The handle's write check runs first in
    /// the transaction unless not `checked`; its write finish (the size limit) runs last
    /// when `committing`.
    ///
    /// Once the commit is done and no lock held, the watchers of the file in this
    /// process hear of what it changed (`ChangeHub`).
    func write<R>(reserving bytes: Int = 0, committing: Bool = true, checked: Bool = true,
                  _ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        func checkedBody(_ txn: StoreTransaction) throws(NormCacheError) -> R {
            if checked, let writeCheck { try writeCheck(txn) }
            let result = try body(txn)
            if committing, let writeFinish { try writeFinish(txn) }
            return result
        }
        if let open = CacheTransaction.current, open.store.shared === shared {
            guard open.store === self else { throw Self.otherHandle(open) }
            // Inside a transaction: its commit tells the watchers.
            let result = try shared.write(in: open.txn, noting: open.changes, committing: committing, checkedBody)
            if committing { counters.countWrite(changing: 0) }
            return result
        }
        let (result, commit) = try holdingOpen { () throws(NormCacheError) in
            guard !options.readOnly else { throw NormCacheError(.readOnly, "'\(path)' is open read-only") }
            return try shared.write(reserving: bytes, committing: committing, checkedBody)
        }
        if committing { counters.countWrite(changing: commit?.changes.changeCount ?? 0) }
        if let commit { changeHub.published(commit, store: self) }
        return result
    }

    /// The watchers of the file in this process.
    var changeHub: ChangeHub { shared.changeHub }

    /// The id of the file's newest commit, by any process.
    func lastCommit() throws(NormCacheError) -> UInt64 {
        try whileOpen { () throws(NormCacheError) in try shared.lastCommit() }
    }

    /// Runs `body` in a read transaction, or in a dropped write transaction when every
    /// reader slot is taken (`SharedEnvironment.peek`): for a handle opening for writing.
    func peek<R>(_ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        try whileOpen { () throws(NormCacheError) in try shared.peek(body) }
    }

    // MARK: Transactions of several calls

    /// Begins a write transaction on this handle for the calling thread (see
    /// `CacheTransaction`): it waits for the file's writer lock and holds it, and keeps
    /// the handle open, until `commit` or `rollBack` on this thread.
    func begin() throws(NormCacheError) {
        if let open = CacheTransaction.current {
            guard open.store !== self else {
                throw NormCacheError(.invalidArgument, "a transaction is already open on the cache '\(path)' in this thread; transactions do not nest")
            }
            throw Self.otherHandle(open)
        }
        state.lockShared()
        do throws(NormCacheError) {
            guard !isClosed else { throw NormCacheError(.invalidArgument, "the cache '\(path)' is closed") }
            guard !options.readOnly else { throw NormCacheError(.readOnly, "'\(path)' is open read-only") }
            CacheTransaction.setCurrent(CacheTransaction(txn: try shared.beginTransaction(), store: self))
        } catch {
            state.unlockShared()
            throw error
        }
    }

    /// Commits the calling thread's transaction on this handle; it has ended when this
    /// returns, committed or, on an error, rolled back. Once no lock is held, the
    /// watchers hear of everything it changed, once.
    func commit() throws(NormCacheError) {
        let open = try transaction(ending: "commit")
        CacheTransaction.setCurrent(nil)
        let commit: Commit?
        do throws(NormCacheError) {
            commit = try shared.commitTransaction(open.txn, changes: open.changes)
        } catch {
            state.unlockShared()
            throw error
        }
        state.unlockShared()
        if let commit {
            counters.countWrite(changing: commit.changes.changeCount, calls: 0)
            changeHub.published(commit, store: self)
        }
    }

    /// Drops everything the calling thread's transaction on this handle wrote.
    func rollBack() throws(NormCacheError) {
        rollBack(try transaction(ending: "roll back"))
    }

    /// Rolls back `open`, a transaction on this handle of the calling thread (which may
    /// be ending with it open).
    func rollBack(_ open: CacheTransaction) {
        CacheTransaction.setCurrent(nil)
        shared.rollBackTransaction(open.txn)
        state.unlockShared()
    }

    /// The calling thread's transaction on this handle, or nil.
    private var ownTransaction: CacheTransaction? {
        guard let open = CacheTransaction.current, open.store === self else { return nil }
        return open
    }

    private func transaction(ending verb: String) throws(NormCacheError) -> CacheTransaction {
        guard let open = ownTransaction else {
            throw NormCacheError(.invalidArgument, "no transaction to \(verb): none is open on the cache '\(path)' in this thread "
                + "(a transaction belongs to the thread that began it)")
        }
        return open
    }

    /// The error of a call through one handle while the thread has a transaction open on
    /// another: a write would wait for it for ever.
    private static func otherHandle(_ open: CacheTransaction) -> NormCacheError {
        NormCacheError(.invalidArgument, "this thread has a transaction open on the cache '\(open.store.path)' through another handle; "
            + "a thread holds one transaction at a time, and its writes go through the handle that began it")
    }

    /// The map size, page size and bytes of pages in use.
    func mapFacts() throws(NormCacheError) -> (mapSize: Int, pageSize: Int, bytesUsed: Int) {
        try whileOpen { () throws(NormCacheError) in try shared.mapFacts() }
    }

    /// The reads in progress in every process, the reader slots taken, their number,
    /// and how many commits the oldest snapshot still read is behind the newest.
    func readerFacts() throws(NormCacheError) -> (reading: Int, taken: Int, slots: Int, oldestLag: Int) {
        try whileOpen { () throws(NormCacheError) in try shared.readerFacts() }
    }

    /// Writes a compacted, consistent copy of the file to the new file `destination`.
    func copy(to destination: String) throws(NormCacheError) {
        guard !destination.isEmpty else { throw NormCacheError(.invalidArgument, "empty destination path") }
        guard !destination.utf8.contains(0) else { throw NormCacheError(.invalidArgument, "destination path contains a NUL byte") }
        try whileOpen { () throws(NormCacheError) in try shared.copy(to: destination) }
    }

    /// The durability of the file's commits in this process.
    var durability: CacheOptions.Durability { shared.durability }

    /// Whether the handle is closed.
    var closed: Bool {
        do {
            try checkOpen()
            return false
        } catch {
            return true
        }
    }

    /// Throws `.invalidArgument` when the handle is closed.
    func checkOpen() throws(NormCacheError) {
        try whileOpen { () throws(NormCacheError) in }
    }

    /// Runs `body` holding the handle open (a close waits for it), or throws
    /// `.invalidArgument` when it is closed. A thread with a transaction open on the
    /// handle holds it open already, until that transaction ends: it does not take the
    /// lock again, which would wait behind a close that waits for its transaction.
    private func whileOpen<R>(_ body: () throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        if ownTransaction != nil { return try body() }
        return try holdingOpen(body)
    }

    /// `whileOpen` for a thread known to have no transaction open on the handle.
    private func holdingOpen<R>(_ body: () throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        try state.withSharedAccess { () throws(NormCacheError) -> R in
            guard !isClosed else { throw NormCacheError(.invalidArgument, "the cache '\(path)' is closed") }
            return try body()
        }
    }
}
