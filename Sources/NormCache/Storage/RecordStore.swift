import Glibc

/// The record store: one LMDB environment per cache file, with a `records` database
/// (stored key → encoded record) and a `meta` database (the format version).
///
/// One store serves many threads: reads run concurrently in their own short read
/// transactions; writes are serialised in the process by a mutex and across
/// processes by LMDB's writer lock, each in one transaction that commits atomically.
/// An access lock, held shared by every transaction, is taken exclusively only to
/// grow the map (LMDB requires that no transaction of the process be active) and to
/// close the store.
final class RecordStore: @unchecked Sendable {
    /// The format version this library writes and the newest it reads.
    static let formatVersion: UInt32 = 1
    /// The key of the format version in the `meta` database.
    private static let formatKey = Array("format".utf8)

    /// The path of the cache file.
    let path: String
    /// The options the store was opened with.
    let options: CacheOptions

    private var environment: LMDBEnvironment?
    private var records: LMDBDatabase = 0
    private let access = ReadWriteLock()
    private let writers = Mutex()

    /// Opens (creating unless read-only) the cache file at `path` and checks that it
    /// is a whole normcache cache of a format this library reads.
    init(path: String, options: CacheOptions) throws(NormCacheError) {
        self.path = path
        self.options = options
        guard !path.isEmpty else { throw NormCacheError(.invalidArgument, "empty cache path") }
        guard !path.utf8.contains(0) else { throw NormCacheError(.invalidArgument, "cache path contains a NUL byte") }
        var flags: LMDBEnvironmentFlags = [.noSubdirectory, .noThreadLocalStorage]
        if options.readOnly { flags.insert(.readOnly) }
        if options.durability == .fast { flags.insert(.noMetaSync) }
        let environment: LMDBEnvironment
        do {
            environment = try LMDBEnvironment(path: path, flags: flags, mapSize: options.mapSize,
                                              maxReaders: options.maxReaders, maxDatabases: 4)
        } catch {
            throw openError(error)
        }
        try checkLength(of: environment)
        records = try openDatabases(in: environment)
        self.environment = environment
    }

    /// Refuses a data file shorter than the pages its meta page claims: LMDB would
    /// map it and fault (SIGBUS) on the first read past the end.
    private func checkLength(of environment: LMDBEnvironment) throws(NormCacheError) {
        var status = stat()
        let fd: Int32
        do throws(LMDBStatus) { fd = try environment.dataFileDescriptor() } catch { throw storageError(error, "mdb_env_get_fd") }
        guard fstat(fd, &status) == 0 else { throw NormCacheError(.storage, "cannot stat '\(path)': \(String(cString: strerror(errno)))") }
        let needed = (Int(environment.info().me_last_pgno) + 1) * environment.pageSize
        guard Int(status.st_size) >= needed else {
            throw NormCacheError(.notACache, "'\(path)' is truncated: \(status.st_size) bytes, but its pages end at byte \(needed)")
        }
    }

    /// Opens `records` and `meta`, stamping a new cache with the format version.
    private func openDatabases(in environment: LMDBEnvironment) throws(NormCacheError) -> LMDBDatabase {
        let txn: LMDBTransaction
        do throws(LMDBStatus) {
            txn = try environment.begin(readOnly: options.readOnly)
        } catch {
            throw storageError(error, "mdb_txn_begin")
        }
        do throws(NormCacheError) {
            let records = try openOrStamp(txn)
            do throws(LMDBStatus) { try txn.commit() } catch { throw storageError(error, "mdb_txn_commit") }
            return records
        } catch {
            txn.abort()
            throw error
        }
    }

    private func openOrStamp(_ txn: LMDBTransaction) throws(NormCacheError) -> LMDBDatabase {
        guard let meta = try lmdb("opening the meta database", { () throws(LMDBStatus) in try optionalDatabase(txn, "meta") }) else {
            return try stamp(txn)
        }
        let stamp = try lmdb("reading the format version") { () throws(LMDBStatus) in
            try Self.formatKey.withBytes { (key) throws(LMDBStatus) in try txn.get(meta, key).map(Array.init) }
        }
        guard let stamp, stamp.count == 4 else { throw notACache("its meta database has no valid format version") }
        let version = stamp.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        guard version <= Self.formatVersion, version > 0 else {
            throw notACache("format version \(version) is newer than this library reads (up to \(Self.formatVersion))")
        }
        guard let records = try lmdb("opening the records database", { () throws(LMDBStatus) in try optionalDatabase(txn, "records") }) else {
            throw notACache("its records database is missing")
        }
        return records
    }

    /// Creates the databases of a new cache and writes its format version; only an
    /// empty LMDB file can become a cache.
    private func stamp(_ txn: LMDBTransaction) throws(NormCacheError) -> LMDBDatabase {
        let entries = try lmdb("reading the main database") { () throws(LMDBStatus) in
            try txn.count(txn.open(database: nil, create: false))
        }
        guard entries == 0 else { throw notACache("an LMDB file without normcache's meta database") }
        guard !options.readOnly else { throw notACache("an empty LMDB file, never stamped by normcache") }
        return try lmdb("creating the databases") { () throws(LMDBStatus) in
            let meta = try txn.open(database: "meta", create: true)
            var version: [UInt8] = []
            version.appendUInt32(Self.formatVersion)
            try Self.formatKey.withBytes { (key) throws(LMDBStatus) in
                try version.withBytes { (value) throws(LMDBStatus) in try txn.put(meta, key, value) }
            }
            return try txn.open(database: "records", create: true)
        }
    }

    /// Runs LMDB calls, turning their failure into the error of `operation`.
    private func lmdb<T>(_ operation: String, _ body: () throws(LMDBStatus) -> T) throws(NormCacheError) -> T {
        do {
            return try body()
        } catch .incompatible {
            throw notACache("a database of the file is not what normcache expects")
        } catch {
            throw storageError(error, operation)
        }
    }

    /// A named database, or nil when the file has none of that name.
    private func optionalDatabase(_ txn: LMDBTransaction, _ name: String) throws(LMDBStatus) -> LMDBDatabase? {
        do throws(LMDBStatus) {
            return try txn.open(database: name, create: false)
        } catch .notFound {
            return nil
        }
    }

    /// Closes the store after the transactions in progress end; returns false when it
    /// was already closed.
    func close() -> Bool {
        access.withExclusiveAccess {
            defer { environment = nil }
            return environment != nil
        }
    }

    /// Runs `body` in a read transaction.
    func read<R>(_ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        while true {
            let outcome: R? = try access.withSharedAccess { () throws(NormCacheError) -> R? in
                let environment = try openEnvironment()
                let txn: LMDBTransaction
                do throws(LMDBStatus) {
                    txn = try environment.begin(readOnly: true)
                } catch .mapResized {
                    return nil
                } catch {
                    throw storageError(error, "mdb_txn_begin")
                }
                defer { txn.abort() }
                return try body(StoreTransaction(txn: txn, records: records, path: path))
            }
            if let outcome { return outcome }
            try adoptGrownMap()
        }
    }

    /// Runs `body` in a write transaction and commits it; on any error nothing is
    /// written. When the map fills, the transaction is abandoned, the map doubled and
    /// `body` run again, so `body` must do nothing but its work in the transaction.
    func write<R>(_ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        guard !options.readOnly else { throw NormCacheError(.readOnly, "'\(path)' is open read-only") }
        return try writers.withLock { () throws(NormCacheError) -> R in
            while true {
                switch try attemptWrite(body) {
                case .done(let result): return result
                case .mapFull: try doubleMap()
                case .mapResized: try adoptGrownMap()
                }
            }
        }
    }

    /// How one attempt at a write transaction ended.
    private enum WriteAttempt<R> {
        case done(R)
        case mapFull
        case mapResized
    }

    private func attemptWrite<R>(_ body: (StoreTransaction) throws(NormCacheError) -> R) throws(NormCacheError) -> WriteAttempt<R> {
        try access.withSharedAccess { () throws(NormCacheError) -> WriteAttempt<R> in
            let environment = try openEnvironment()
            let txn: LMDBTransaction
            do throws(LMDBStatus) {
                txn = try environment.begin(readOnly: false)
            } catch .mapResized {
                return .mapResized
            } catch {
                throw storageError(error, "mdb_txn_begin")
            }
            let result: R
            do throws(NormCacheError) {
                result = try body(StoreTransaction(txn: txn, records: records, path: path))
            } catch {
                txn.abort()
                if error.code == .mapFull { return .mapFull }
                throw error
            }
            do throws(LMDBStatus) {
                try txn.commit()
            } catch .mapFull {
                return .mapFull
            } catch {
                throw storageError(error, "mdb_txn_commit")
            }
            return .done(result)
        }
    }

    /// The map size, page size and bytes of pages in use.
    func mapFacts() throws(NormCacheError) -> (mapSize: Int, pageSize: Int, bytesUsed: Int) {
        try access.withSharedAccess { () throws(NormCacheError) in
            let environment = try openEnvironment()
            let info = environment.info()
            let pageSize = environment.pageSize
            return (info.me_mapsize, pageSize, (Int(info.me_last_pgno) + 1) * pageSize)
        }
    }

    private func openEnvironment() throws(NormCacheError) -> LMDBEnvironment {
        guard let environment else { throw NormCacheError(.invalidArgument, "the cache '\(path)' is closed") }
        return environment
    }

    /// Takes the map size another process has grown the file to.
    private func adoptGrownMap() throws(NormCacheError) {
        try access.withExclusiveAccess { () throws(NormCacheError) in
            do { try openEnvironment().setMapSize(0) } catch let error as NormCacheError { throw error } catch {
                throw storageError(error as? LMDBStatus ?? LMDBStatus(rawValue: EIO), "mdb_env_set_mapsize")
            }
        }
    }

    private func doubleMap() throws(NormCacheError) {
        try access.withExclusiveAccess { () throws(NormCacheError) in
            let environment = try openEnvironment()
            let current = environment.info().me_mapsize
            let (doubled, overflow) = current.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw NormCacheError(.storage, "the map of '\(path)' cannot grow past \(current) bytes") }
            do throws(LMDBStatus) { try environment.setMapSize(doubled) } catch {
                throw storageError(error, "growing the map to \(doubled) bytes")
            }
        }
    }

    private func openError(_ status: LMDBStatus) -> NormCacheError {
        switch status {
        case .invalid: return notACache("not an LMDB file")
        case .versionMismatch: return notACache("written by an incompatible LMDB version")
        case LMDBStatus(rawValue: ENOENT):
            return NormCacheError(.storage, options.readOnly
                ? "cannot open '\(path)' read-only: no such file (or its directory does not exist)"
                : "cannot create '\(path)': its directory does not exist")
        default: return storageError(status, "opening the cache")
        }
    }

    private func notACache(_ reason: String) -> NormCacheError {
        NormCacheError(.notACache, "'\(path)' is not a normcache cache: \(reason)")
    }

    private func storageError(_ status: LMDBStatus, _ operation: String) -> NormCacheError {
        StoreTransaction.error(status, operation, path: path)
    }
}

extension NormCacheError.Code {
    /// Internal to the store: the map is full and the write is retried after growing it.
    static let mapFull = NormCacheError.Code(rawValue: Int32.min)
}
