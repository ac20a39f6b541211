import Glibc

/// The one LMDB environment of a cache file in this process, shared by every handle
/// that opens the file ("Do not have open an LMDB database twice in the same process
/// at the same time": a second environment would reset the lock file under the first).
///
/// Reads run concurrently in their own short read transactions; writes are
/// serialised in the process by a mutex and across processes by LMDB's writer lock.
/// An access lock, held shared by every transaction, is taken exclusively only to
/// resize the map (LMDB requires that no transaction of the process be active) and to
/// close the environment.
final class SharedEnvironment: @unchecked Sendable {
    /// The format version this library writes and the newest it reads.
    static let formatVersion: UInt32 = 1
    private static let saltKey = Array("key_salt".utf8)
    /// The largest step by which a full map grows.
    private static let maximumGrowth = 1 << 30
    /// How often a transaction is retried after another process resized the map.
    private static let resizeRetries = 8

    /// The path the environment was first opened with, for messages.
    let path: String
    /// The file it maps.
    let identity: FileIdentity
    /// Whether it is open for reading only.
    let readOnly: Bool
    /// The salt of the hashes of long keys, kept in the file's meta database.
    private(set) var keySalt: UInt64 = 0
    /// The durability of its commits: the strongest any open handle asked for.
    private(set) var durability: CacheOptions.Durability
    /// The handles open on it; changed only under `EnvironmentRegistry`'s lock.
    var handles = 0

    /// Whether this process opened the environment (and not a parent before fork()).
    var belongsToThisProcess: Bool { ForkSafety.generation == owner }

    private var environment: LMDBEnvironment?
    private var records: LMDBDatabase = 0
    private var meta: LMDBDatabase = 0
    /// The commit log (`StoreTransaction+CommitLog`); nil in a file opened read-only
    /// before a writer of this version created it.
    private var log: LMDBDatabase?
    /// The watchers of this file in this process, which every commit here wakes.
    let changeHub = ChangeHub()
    /// The fork generation it was opened in (`ForkSafety.registeredGeneration`).
    private let owner = ForkSafety.registeredGeneration
    private let access = ReadWriteLock()
    private let writers = Mutex()
    /// When writes release the slots of dead readers; used under `writers`.
    private var staleReaders = StaleReaderSchedule()
    /// Whether a transaction of several calls is open: the map must not be resized.
    /// Set under `writers` and shared `access`, so read under exclusive `access`.
    private var transactionOpen = false

    /// Opens the environment of the file at `path`.
    init(path: String, options: CacheOptions) throws(NormCacheError) {
        self.path = path
        readOnly = options.readOnly
        durability = options.durability
        var flags: LMDBEnvironmentFlags = [.noSubdirectory, .noThreadLocalStorage]
        if options.readOnly { flags.insert(.readOnly) }
        if options.durability == .fast { flags.insert(.noMetaSync) }
        let environment: LMDBEnvironment
        let lockPath = path + "-lock"
        let lockExisted = Glibc.access(lockPath, F_OK) == 0
        do throws(LMDBError) {
            environment = try LMDBEnvironment(path: path, flags: flags, mapSize: options.mapSize,
                                              maxReaders: options.maxReaders, maxDatabases: 4, mode: options.mode)
        } catch {
            // LMDB creates the lock file before it reads the data file. When the data file
            // is no LMDB file at all, no cache can be using that lock file: the one this
            // open created goes again, so that a mistaken path leaves nothing beside it.
            if !lockExisted, error.status == .invalid || error.status == .versionMismatch { unlink(lockPath) }
            throw Self.openError(error, path: path, readOnly: options.readOnly)
        }
        var status = stat()
        let fd: Int32
        do throws(LMDBError) { fd = try environment.dataFileDescriptor() } catch { throw NormCacheError(error, path: path) }
        // The pages the meta page claims are read before the file's size: another process
        // may commit in between, and as a data file only grows, this order never takes a
        // commit for a cut (the other order did, under load: test_processes).
        let needed = CacheFileCheck.usedBytes(environment)
        guard fstat(fd, &status) == 0 else { throw NormCacheError(.storage, "cannot stat '\(path)': \(String(cString: strerror(errno)))") }
        identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        try CacheFileCheck.checkLength(needed, fileSize: Int(status.st_size), path: path)
        environment.clearStaleReaders()
        try openDatabases(in: environment)
        self.environment = environment
    }

    // MARK: Databases

    /// Opens `records` and `meta`, stamping a new cache with the format version and a
    /// key salt. A stamped file is opened in a read transaction, so that an open never
    /// waits for the writer lock (which a transaction of several calls may hold long);
    /// only a file to stamp takes a write transaction.
    private func openDatabases(in environment: LMDBEnvironment) throws(NormCacheError) {
        if try openDatabases(in: environment, writing: false) { return }
        _ = try openDatabases(in: environment, writing: true)
    }

    /// Opens the databases in a transaction that may stamp the file when `writing` (or
    /// reports the file's errors, read-only); returns false when the file needs a stamp
    /// this transaction cannot write, or a handle open for writing finds every reader
    /// slot taken.
    private func openDatabases(in environment: LMDBEnvironment, writing: Bool) throws(NormCacheError) -> Bool {
        let begun: LMDBTransaction?
        do throws(LMDBError) {
            begun = try beginOpening(environment, writing: writing)
        } catch {
            // Every reader slot taken: an open for writing needs none (test_resources).
            guard writing || readOnly || error.status != .readersFull else { return false }
            throw NormCacheError(error, path: path)
        }
        guard let txn = begun else { throw resizedTooOften() }
        let opened: Bool
        do throws(NormCacheError) {
            opened = try openOrStamp(txn, stamping: writing || readOnly)
        } catch {
            txn.abort()
            throw error
        }
        guard opened else {
            txn.abort()
            return false
        }
        // A failed commit has already ended the transaction: it must not be aborted.
        do throws(LMDBError) { try txn.commit() } catch { throw NormCacheError(error, path: path) }
        return true
    }

    /// Begins the transaction that opens the databases. Another process may grow the map
    /// between this environment's open, which read the map's size, and the begin
    /// (`MDB_MAP_RESIZED`, under a busy writer): the new size is adopted and the begin made
    /// again, as reads and writes do; nil when the size kept changing.
    private func beginOpening(_ environment: LMDBEnvironment, writing: Bool) throws(LMDBError) -> LMDBTransaction? {
        for _ in 0...Self.resizeRetries {
            do throws(LMDBError) {
                return try environment.begin(readOnly: !writing)
            } catch {
                guard error.status == .mapResized else { throw error }
                try environment.setMapSize(0)
            }
        }
        return nil
    }

    /// Opens the databases; without a meta database, stamps the file when `stamping`
    /// (a read-only handle's `stamp` says why it cannot) and otherwise returns false.
    private func openOrStamp(_ txn: LMDBTransaction, stamping: Bool) throws(NormCacheError) -> Bool {
        guard let meta = try lmdb("opening the meta database", { () throws(LMDBError) in try optionalDatabase(txn, "meta") }) else {
            guard stamping else { return false }
            try stamp(txn)
            return true
        }
        try checkFlags(txn, meta, "meta")
        self.meta = meta
        try CacheFileCheck.checkFormatVersion(path: path) { () throws(NormCacheError) in
            try lmdb("reading the format version") { () throws(LMDBError) in
                try CacheFileCheck.formatKey.withBytes { (key) throws(LMDBError) in try txn.get(meta, key).map(Array.init) }
            }
        }
        let salt = try lmdb("reading the key salt") { () throws(LMDBError) in
            try Self.saltKey.withBytes { (key) throws(LMDBError) in try txn.get(meta, key).map(Array.init) }
        }
        guard let salt, salt.count == 8 else { throw notACache("its meta database has no valid key salt") }
        keySalt = salt.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        guard let records = try lmdb("opening the records database", { () throws(LMDBError) in try optionalDatabase(txn, "records") }) else {
            throw notACache("its records database is missing")
        }
        try checkFlags(txn, records, "records")
        self.records = records
        return try openCommitLog(txn, new: false, creating: stamping)
    }

    /// Opens the commit log, creating it (and its floor) when the file has none and is
    /// open for writing; `new`: this transaction creates the cache. Returns false when
    /// the log must be created but the transaction may not (`creating`: a write
    /// transaction).
    private func openCommitLog(_ txn: LMDBTransaction, new: Bool, creating: Bool) throws(NormCacheError) -> Bool {
        if let log = try lmdb("opening the commit log", { () throws(LMDBError) in try optionalDatabase(txn, "changes") }) {
            try checkFlags(txn, log, "changes")
            self.log = log
            return true
        }
        guard !readOnly else { return true }
        guard creating else { return false }
        let log = try lmdb("creating the commit log") { () throws(LMDBError) in try txn.open(database: "changes", create: true) }
        self.log = log
        try StoreTransaction(txn: txn, records: records, meta: meta, file: self, keySalt: keySalt, mapped: nil, fullMap: nil,
                             log: log, changes: nil).startCommitLog(new: new)
        return true
    }

    /// Creates the databases of a new cache; only an empty LMDB file can become one.
    private func stamp(_ txn: LMDBTransaction) throws(NormCacheError) {
        let entries = try lmdb("reading the main database") { () throws(LMDBError) in
            try txn.count(txn.open(database: nil, create: false))
        }
        guard entries == 0 else { throw notACache("an LMDB file without normcache's meta database") }
        guard !readOnly else { throw notACache("an empty LMDB file, never stamped by normcache") }
        let salt = UInt64.random(in: .min ... .max)
        keySalt = salt
        (meta, records) = try lmdb("creating the databases") { () throws(LMDBError) in
            let meta = try txn.open(database: "meta", create: true)
            var version: [UInt8] = []
            version.appendUInt32(Self.formatVersion)
            var saltBytes: [UInt8] = []
            for shift in stride(from: 0, to: 64, by: 8) { saltBytes.append(UInt8(truncatingIfNeeded: salt >> UInt64(shift))) }
            for (key, value) in [(CacheFileCheck.formatKey, version), (Self.saltKey, saltBytes)] {
                try key.withBytes { (key) throws(LMDBError) in
                    try value.withBytes { (value) throws(LMDBError) in try txn.put(meta, key, value) }
                }
            }
            return (meta, try txn.open(database: "records", create: true))
        }
        _ = try openCommitLog(txn, new: true, creating: true)
    }

    /// Refuses a database whose flags (DUPSORT, INTEGERKEY, ...) would change how keys
    /// compare or values store.
    private func checkFlags(_ txn: LMDBTransaction, _ database: LMDBDatabase, _ name: String) throws(NormCacheError) {
        let flags = try lmdb("reading the flags of \(name)") { () throws(LMDBError) in try txn.flags(database) }
        guard flags == 0 else { throw notACache("its \(name) database has flags 0x\(String(flags, radix: 16))") }
    }

    /// Runs LMDB calls that check the file while it opens.
    private func lmdb<T>(_ operation: String, _ body: () throws(LMDBError) -> T) throws(NormCacheError) -> T {
        do throws(LMDBError) {
            return try body()
        } catch {
            guard error.status != .incompatible else { throw notACache("a database of the file is not what normcache expects") }
            throw NormCacheError(error, path: path, doing: operation)
        }
    }

    private func optionalDatabase(_ txn: LMDBTransaction, _ name: String) throws(LMDBError) -> LMDBDatabase? {
        do throws(LMDBError) {
            return try txn.open(database: name, create: false)
        } catch {
            guard error.status == .notFound else { throw error }
            return nil
        }
    }

    // MARK: Transactions

    /// Raises the durability of commits to `.full` when a handle asks for it.
    func require(_ wanted: CacheOptions.Durability) throws(NormCacheError) {
        guard wanted == .full, durability == .fast else { return }
        try access.withExclusiveAccess { () throws(NormCacheError) in
            let environment = try openEnvironment()
            do throws(LMDBError) { try environment.setNoMetaSync(false) } catch { throw NormCacheError(error, path: path) }
            durability = .full
        }
    }

    /// Runs `body` in a read transaction.
    func read<R>(_ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        for _ in 0...Self.resizeRetries {
            if let outcome = try attemptRead(passing: [.mapResized], body) { return outcome }
            try adoptGrownMap()
        }
        throw resizedTooOften()
    }

    /// Runs `body` in a read transaction or, when every reader slot is taken (or the
    /// map was grown), in a write transaction that is dropped: for what a handle open
    /// for writing reads as it opens, which must wait neither for a reader slot nor for
    /// the writer lock (a transaction of several calls may hold it long).
    func peek<R>(_ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        if let outcome = try attemptRead(passing: [.readersFull, .mapResized], body) { return outcome }
        return try write(committing: false, body).result
    }

    /// Runs `body` in a read transaction; nil when its begin fails with one of
    /// `statuses`, which the caller answers.
    private func attemptRead<R>(passing statuses: [LMDBStatus],
                                _ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> R? {
        try access.withSharedAccess { () throws(NormCacheError) -> R? in
            let environment = try openEnvironment()
            let begun: (txn: LMDBTransaction, info: LMDBInfo)
            do throws(LMDBError) {
                begun = try environment.beginRead()
            } catch {
                guard !statuses.contains(error.status) else { return nil }
                throw NormCacheError(error, path: path)
            }
            defer { environment.endRead(begun.txn) }
            return try body(transaction(begun.txn, environment, info: begun.info, fullMap: nil, changes: nil))
        }
    }

    /// Runs `body` in a write transaction and commits it; on any error nothing is
    /// written. When the map fills, the transaction is abandoned, the map grown and
    /// `body` run again, so `body` must do nothing but its work in the transaction.
    /// A write that knows it brings about `bytes` of data has the map grown to hold
    /// them first, so that a large write is not run again for every growth step. Not
    /// `committing`, the transaction is aborted after `body` (what it wrote is dropped).
    /// A write whose handle was interrupted (`InterruptCheck`) by the end of `body` is
    /// aborted, not committed.
    /// Returns, beside `body`'s result, the commit when it changed anything, for the
    /// caller to hand to `changeHub` once it holds no lock.
    func write<R>(reserving bytes: Int = 0, committing: Bool = true,
                  _ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> (result: R, commit: Commit?) {
        try refuseInherited()
        return try writers.withLock { () throws(NormCacheError) -> (result: R, commit: Commit?) in
            try makeRoom(for: bytes, byAtLeastAStep: true)
            var resizes = 0
            while true {
                switch try attemptWrite(committing: committing, body) {
                case .done(let result, let commit): return (result, commit)
                case .mapFull: try growMap()
                case .mapResized:
                    resizes += 1
                    guard resizes <= Self.resizeRetries else { throw resizedTooOften() }
                    try adoptGrownMap()
                }
            }
        }
    }

    private enum WriteAttempt<R> {
        case done(R, Commit?)
        case mapFull
        case mapResized
    }

    private func attemptWrite<R>(committing: Bool, _ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> WriteAttempt<R> {
        try access.withSharedAccess { () throws(NormCacheError) -> WriteAttempt<R> in
            let environment = try openEnvironment()
            guard let txn = try beginWrite(environment) else { return .mapResized }
            let changes = ChangeSet()
            return try perform(body, in: txn, environment, changes: changes, committing: committing) { (txn) throws(NormCacheError) in
                try commitWrite(txn, environment, changes: changes)
            }
        }
    }

    /// Begins a write transaction (LMDB's writer lock, for this process's `writers`
    /// holder); nil when another process has grown the map.
    private func beginWrite(_ environment: LMDBEnvironment) throws(NormCacheError) -> LMDBTransaction? {
        if staleReaders.isDue(pages: Int(clamping: environment.info().me_last_pgno)) { environment.clearStaleReaders() }
        do throws(LMDBError) {
            return try environment.begin(readOnly: false)
        } catch {
            guard error.status != .mapResized else { return nil }
            throw NormCacheError(error, path: path)
        }
    }

    /// What committing a write transaction came to.
    private enum CommitOutcome {
        /// Committed; the commit when it changed anything.
        case committed(Commit?)
        /// The map filled; the transaction has ended.
        case mapFull
    }

    /// Runs `body` in the write transaction `txn`, noting its changes in `changes`, and
    /// ends it: by `commit`, or by an abort on any error or when not `committing`.
    private func perform<R>(_ body: (StoreTransaction) throws(NormCacheError) -> R, in txn: LMDBTransaction,
                            _ environment: LMDBEnvironment, changes: ChangeSet, committing: Bool,
                            commit: (LMDBTransaction) throws(NormCacheError) -> CommitOutcome) throws(NormCacheError) -> WriteAttempt<R> {
        let fullMap = FullMapSignal()
        let result: R
        do throws(NormCacheError) {
            result = try body(transaction(txn, environment, fullMap: fullMap, changes: changes))
            // The last moment an interrupt stops a write: after it, the commit.
            if committing { try InterruptCheck.now() }
        } catch {
            txn.abort()
            if fullMap.isRaised { return .mapFull }
            throw error
        }
        guard committing else {
            txn.abort()
            return .done(result, nil)
        }
        switch try commit(txn) {
        case .committed(let done): return .done(result, done)
        case .mapFull: return .mapFull
        }
    }

    /// Commits a write transaction whose work is done: the one step every change to the
    /// file passes, a single call's write or, at its end, a transaction of several
    /// calls (`commitTransaction`). What the transaction changed (`changes`) is
    /// appended to the commit log in it, then it commits; the transaction has ended
    /// either way (a failed commit must not be aborted).
    private func commitWrite(_ txn: LMDBTransaction, _ environment: LMDBEnvironment,
                             changes: ChangeSet) throws(NormCacheError) -> CommitOutcome {
        if !changes.isEmpty {
            let fullMap = FullMapSignal()
            let store = transaction(txn, environment, fullMap: fullMap, changes: nil)
            do throws(NormCacheError) {
                try changes.withLogEntry { (entry) throws(NormCacheError) in try store.appendToCommitLog(entry) }
            } catch {
                txn.abort()
                if fullMap.isRaised { return .mapFull }
                throw error
            }
        }
        let id = txn.id
        do throws(LMDBError) {
            try txn.commit()
        } catch {
            guard error.status != .mapFull else { return .mapFull }
            throw NormCacheError(error, path: path)
        }
        return .committed(changes.isEmpty ? nil : Commit(id: id, changes: changes))
    }

    // MARK: Transactions of several calls

    /// The bytes of the map a transaction of several calls may fill: `beginTransaction`
    /// grows the map to leave twice as many free, as the map cannot grow while it is open.
    static let transactionHeadroom = 32 << 20

    /// Begins a write transaction that spans several calls of one thread: takes the
    /// writer lock (this process's `writers`, then LMDB's, which every other writer of
    /// every process waits for) until `commitTransaction` or `rollBackTransaction` on
    /// the same thread. The map is grown first to leave room (`transactionHeadroom`).
    func beginTransaction() throws(NormCacheError) -> LMDBTransaction {
        try refuseInherited()
        writers.lock()
        do throws(NormCacheError) {
            try makeRoom(for: Self.transactionHeadroom, byAtLeastAStep: false)
            for _ in 0...Self.resizeRetries {
                let begun = try access.withSharedAccess { () throws(NormCacheError) -> LMDBTransaction? in
                    guard let txn = try beginWrite(try openEnvironment()) else { return nil }
                    transactionOpen = true
                    return txn
                }
                if let begun { return begun }
                try adoptGrownMap()
            }
            throw resizedTooOften()
        } catch {
            writers.unlock()
            throw error
        }
    }

    /// Runs `body`, one call of the transaction `parent` (on the thread that began it),
    /// in a transaction nested in `parent`: when `body` fails, or is not `committing`,
    /// only what it wrote is dropped and the transaction's earlier work stays. A full
    /// map fails the call alone, as the map cannot grow while the transaction is open.
    func write<R>(in parent: LMDBTransaction, noting changes: ChangeSet, committing: Bool,
                  _ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        try access.withSharedAccess { () throws(NormCacheError) -> R in
            let environment = try openEnvironment()
            let child: LMDBTransaction
            do throws(LMDBError) { child = try environment.begin(nestedIn: parent) } catch { throw NormCacheError(error, path: path) }
            let own = ChangeSet()
            let attempt = try perform(body, in: child, environment, changes: own, committing: committing) { (child) throws(NormCacheError) -> CommitOutcome in
                // Joins the parent: nothing reaches the file (or the log) before its commit.
                do throws(LMDBError) { try child.commit() } catch {
                    guard error.status != .mapFull else { return .mapFull }
                    throw NormCacheError(error, path: path)
                }
                changes.absorb(own)
                return .committed(nil)
            }
            guard case .done(let result, _) = attempt else {
                throw NormCacheError(.storage, "the map of '\(path)' is full and cannot grow while a transaction is open "
                    + "(its begin left \(2 * Self.transactionHeadroom >> 20) MiB free): this call was undone and the transaction's earlier calls stay; "
                    + "commit or roll back, then go on in a new transaction (its begin grows the map), or open the cache with a larger \"map_size\"")
            }
            return result
        }
    }

    /// Runs `body`, a read of the transaction `txn` (on the thread that began it): it
    /// sees the transaction's own writes.
    func read<R>(in txn: LMDBTransaction, _ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        try access.withSharedAccess { () throws(NormCacheError) -> R in
            try body(transaction(txn, try openEnvironment(), fullMap: nil, changes: nil))
        }
    }

    /// Commits the transaction `txn` of several calls, which changed `changes`, through
    /// the same step as every write (`commitWrite`: one commit log entry), and releases
    /// the writer lock; returns the commit when it changed anything. It has ended either
    /// way.
    func commitTransaction(_ txn: LMDBTransaction, changes: ChangeSet) throws(NormCacheError) -> Commit? {
        defer { writers.unlock() }
        return try access.withSharedAccess { () throws(NormCacheError) -> Commit? in
            transactionOpen = false
            let environment: LMDBEnvironment
            do throws(NormCacheError) { environment = try openEnvironment() } catch {
                txn.abort()
                throw error
            }
            guard case .committed(let commit) = try commitWrite(txn, environment, changes: changes) else {
                throw NormCacheError(.storage, "the map of '\(path)' filled while the transaction committed: nothing of it was written; "
                    + "do the work in smaller transactions or open the cache with a larger \"map_size\"")
            }
            return commit
        }
    }

    /// Drops everything the transaction `txn` of several calls wrote and releases the
    /// writer lock; on the thread that began it.
    func rollBackTransaction(_ txn: LMDBTransaction) {
        access.withSharedAccess {
            transactionOpen = false
            txn.abort()
        }
        writers.unlock()
    }

    /// The storage layer's view of `txn`; `info`, the environment's info when the
    /// caller has it already (else it is read).
    private func transaction(_ txn: LMDBTransaction, _ environment: LMDBEnvironment, info: LMDBInfo? = nil, fullMap: FullMapSignal?,
                             changes: ChangeSet?) -> StoreTransaction {
        let info = info ?? environment.info()
        let mapped = UnsafeRawPointer(info.me_mapaddr).map { start in
            UnsafeRawBufferPointer(start: start, count: CacheFileCheck.usedBytes(info, pageSize: environment.pageSize) ?? 0)
        }
        return StoreTransaction(txn: txn, records: records, meta: meta, file: self, keySalt: keySalt, mapped: mapped, fullMap: fullMap,
                                log: log, changes: changes)
    }

    // MARK: The map

    /// The map size, page size and bytes of pages in use.
    func mapFacts() throws(NormCacheError) -> (mapSize: Int, pageSize: Int, bytesUsed: Int) {
        try access.withSharedAccess { () throws(NormCacheError) in
            let environment = try openEnvironment()
            let info = environment.info()
            return (info.me_mapsize, environment.pageSize, CacheFileCheck.usedBytes(info, pageSize: environment.pageSize) ?? 0)
        }
    }

    /// The id of the file's newest commit, by any process, that a read begun now sees:
    /// the snapshot of a read transaction. (The meta page's id, `me_last_txnid`, runs a
    /// moment ahead while another process commits: its meta page is written before
    /// readers are shown it.)
    func lastCommit() throws(NormCacheError) -> UInt64 {
        try read { (txn) throws(NormCacheError) in txn.txn.id }
    }

    /// The reader slots of every process (after the slots of dead processes are
    /// released): how many read a snapshot now, how many are taken (those, and those
    /// kept between reads), how many there are, and how many commits the oldest
    /// snapshot still read is behind the newest (0 when none is read).
    func readerFacts() throws(NormCacheError) -> (reading: Int, taken: Int, slots: Int, oldestLag: Int) {
        try access.withSharedAccess { () throws(NormCacheError) in
            let environment = try openEnvironment()
            environment.clearStaleReaders()
            let table = environment.readers()
            let info = environment.info()
            let newest = UInt64(info.me_last_txnid)
            let lag = table.oldestSnapshot.map { newest >= $0 ? Int(clamping: newest - $0) : 0 } ?? 0
            return (table.reading, table.slotsTaken, Int(info.me_maxreaders), lag)
        }
    }

    /// Writes a compacted, consistent copy of the file to the new file `destination`
    /// (see `LMDBEnvironment.copy`): writers go on meanwhile, the copy holds the data
    /// as of the moment it began. After another process grew the map, the map is
    /// adopted and the copy made again, as a read is. A failed copy leaves no file
    /// behind (but an existing one, which it refused).
    func copy(to destination: String) throws(NormCacheError) {
        for _ in 0...Self.resizeRetries {
            let copied = try access.withSharedAccess { () throws(NormCacheError) -> Bool in
                let environment = try openEnvironment()
                do throws(LMDBError) {
                    try environment.copy(to: destination, compacting: true)
                    return true
                } catch {
                    guard error.status != LMDBStatus(rawValue: EEXIST) else {
                        throw NormCacheError(.invalidArgument, "'\(destination)' exists: a copy is written only to a new file")
                    }
                    unlink(destination)
                    guard error.status != .mapResized else { return false }
                    throw NormCacheError(error, path: path, doing: "copying the cache to '\(destination)'")
                }
            }
            if copied { return }
            try adoptGrownMap()
        }
        throw resizedTooOften()
    }

    /// Takes the map size another process has grown the file to.
    private func adoptGrownMap() throws(NormCacheError) {
        try resizeMap { _ in 0 }
    }

    /// Grows the map, when needed, to hold the pages in use and twice `bytes` (room for
    /// the new records, their B-tree pages and the copies a transaction writes). With
    /// `byAtLeastAStep`, a map that must grow grows by at least a full map's step
    /// (`grown(_:)`): so a write's small needs near the end of the map do not resize it
    /// write after write, each resize making every other process's next transaction
    /// adopt the new size (`MDB_MAP_RESIZED`). Without it the map grows to exactly that
    /// room, as a transaction's begin promises (`transactionHeadroom`).
    private func makeRoom(for bytes: Int, byAtLeastAStep: Bool) throws(NormCacheError) {
        guard bytes > 0 else { return }
        let facts = try mapFacts()
        let (doubled, overflow) = bytes.multipliedReportingOverflow(by: 2)
        guard !overflow, case (let needed, false) = facts.bytesUsed.addingReportingOverflow(doubled),
              needed > facts.mapSize else { return }
        let room = (needed + facts.pageSize - 1) / facts.pageSize * facts.pageSize
        try resizeMap { current in max(current, room, byAtLeastAStep ? Self.grown(current) ?? current : current) }
    }

    /// Grows a full map by a step (`grown(_:)`).
    private func growMap() throws(NormCacheError) {
        try resizeMap { current in Self.grown(current) }
    }

    /// `size` grown by itself, at most by `maximumGrowth`; nil past `Int.max`.
    private static func grown(_ size: Int) -> Int? {
        let (grown, overflow) = size.addingReportingOverflow(min(size, maximumGrowth))
        return overflow ? nil : grown
    }

    /// Sets the map size that `size` computes from the current one. When LMDB cannot map
    /// the new size it has already unmapped the old one, so the old size is mapped
    /// again; if even that fails the environment is closed and every later call fails.
    private func resizeMap(_ size: (Int) -> Int?) throws(NormCacheError) {
        try access.withExclusiveAccess { () throws(NormCacheError) in
            let environment = try openEnvironment()
            let current = environment.info().me_mapsize
            guard !transactionOpen else {
                throw NormCacheError(.storage, "the map of '\(path)' cannot be resized while a transaction is open")
            }
            guard let wanted = size(current) else {
                throw NormCacheError(.storage, "the map of '\(path)' cannot grow past \(current) bytes")
            }
            do throws(LMDBError) {
                try environment.setMapSize(wanted)
            } catch {
                do throws(LMDBError) {
                    try environment.setMapSize(current)
                } catch {
                    self.environment = nil
                    throw NormCacheError(.storage, "the map of '\(path)' could not be restored after a failed resize; the cache is closed: \(error.status.text)")
                }
                throw NormCacheError(error, path: path, doing: "resizing the map of \(current) bytes to \(wanted)")
            }
        }
    }

    // MARK: Closing

    deinit {
        // mdb_env_close in a child would clear the reader slots of the parent (LMDB
        // keys them by the opener's pid): an inherited environment is left open.
        if !belongsToThisProcess, let environment { _ = Unmanaged.passRetained(environment) }
    }

    /// Closes the environment once the transactions in progress end.
    func close() {
        access.withExclusiveAccess { environment = nil }
    }

    private func openEnvironment() throws(NormCacheError) -> LMDBEnvironment {
        try refuseInherited()
        guard let environment else { throw NormCacheError(.storage, "the cache '\(path)' was closed after a failed map resize") }
        return environment
    }

    /// Refuses an environment inherited through fork(); checked before `writers` too,
    /// which a thread of the parent may have held at the fork.
    private func refuseInherited() throws(NormCacheError) {
        guard belongsToThisProcess else {
            throw NormCacheError(.invalidArgument, "the cache '\(path)' was opened before fork(); a child process must open it again")
        }
    }

    // MARK: Errors

    private func resizedTooOften() -> NormCacheError {
        NormCacheError(.notACache, "'\(path)' is damaged: its map size keeps changing")
    }

    private static func openError(_ error: LMDBError, path: String, readOnly: Bool) -> NormCacheError {
        switch error.status {
        case .invalid: return NormCacheError(.notACache, "'\(path)' is not a normcache cache: not an LMDB file")
        case .versionMismatch: return NormCacheError(.notACache, "'\(path)' is not a normcache cache: written by an incompatible LMDB version")
        case LMDBStatus(rawValue: ENOENT):
            return NormCacheError(.storage, readOnly
                ? "cannot open '\(path)' read-only: no such file (or its directory does not exist)"
                : "cannot create '\(path)': its directory does not exist")
        case LMDBStatus(rawValue: EACCES): return permissionError(path: path, readOnly: readOnly)
        default: return NormCacheError(error, path: path, doing: "opening the cache")
        }
    }

    /// Names the file this user may not use and what to do: every process that opens
    /// a cache, a read-only one too, registers its reads in the lock file and must
    /// write it.
    private static func permissionError(path: String, readOnly: Bool) -> NormCacheError {
        let lockPath = path + "-lock"
        let how = readOnly ? "read-only" : "for writing"
        let share = "to share a cache, its owner opens it with the option \"mode\": \"0660\" (or runs chmod g+rw on both files) "
            + "and puts this user in the files' group"
        guard Glibc.access(path, F_OK) == 0 else {
            return NormCacheError(.storage, "cannot create '\(path)': Permission denied: this user may not create files in its directory")
        }
        guard Glibc.access(lockPath, F_OK) == 0 else {
            return NormCacheError(.storage, "cannot open '\(path)' \(how): Permission denied creating its lock file '\(lockPath)' "
                + "(this user may not write the directory); opening the cache once as a user who may creates it")
        }
        if Glibc.access(lockPath, R_OK | W_OK) != 0 {
            return NormCacheError(.storage, "cannot open '\(path)' \(how): Permission denied on its lock file '\(lockPath)' "
                + "(\(describe(lockPath))), which every process that opens the cache, a read-only one too, must write; \(share)")
        }
        let access = readOnly ? "read" : "read and write"
        return NormCacheError(.storage, "cannot open '\(path)' \(how): Permission denied: this user may not \(access) "
            + "the cache file (\(describe(path))); \(share)")
    }

    /// The mode and owner of the file at `path`, for messages.
    private static func describe(_ path: String) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return "cannot stat it" }
        return "mode 0\(String(status.st_mode & 0o777, radix: 8)), owner uid \(status.st_uid), group gid \(status.st_gid)"
    }

    private func notACache(_ reason: String) -> NormCacheError {
        CacheFileCheck.notACache(path, reason)
    }
}

/// The device and inode of a file: what makes two paths the same cache.
struct FileIdentity: Hashable {
    var device: UInt64
    var inode: UInt64
}
