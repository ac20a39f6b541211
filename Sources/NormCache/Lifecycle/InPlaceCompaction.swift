import CLMDB
import Glibc

/// Compacting a cache file in place: the file rewritten without its free pages, for
/// when no process has it open. LMDB never gives pages back to the file system (a
/// cleared cache keeps its size); a compacted copy has only the pages in use.
///
/// The procedure, with `<cache>-lock` claimed (`LockFileClaim`) from the first step to
/// the last, so that no other process has the file open and any process that starts to
/// open it waits:
/// 1. refuse when a handle of this process has the file open, or another process does
///    (it holds a lock on `<cache>-lock`);
/// 2. open the file without LMDB's locks (`MDB_NOLOCK`, read-only: nobody else can
///    write it now), check that it is a whole cache of a format this library reads
///    (`CacheFileCheck`: a truncated file would fault on the first page past its end),
///    and copy it, compacted, to `<cache>.compact-<pid>` in the same directory, with
///    the same permission bits, synced;
/// 3. rename the copy over the file and sync the directory;
/// 4. open the new file once as LMDB's first user, which builds the lock table anew for
///    it (the old table's transaction id belongs to the old file), and close it;
/// 5. end the claim: waiting processes go on and open the new file.
///
/// A failure before the rename removes the copy and leaves the file as it was (and a
/// lock file that step 1 created beside a file that is no cache).
enum InPlaceCompaction {
    /// Compacts the cache file at `path`; returns its size before and after, in bytes.
    /// `maxReaders` sizes the lock table step 4 builds.
    static func compact(path: String, maxReaders: UInt32) throws(NormCacheError) -> (before: Int, after: Int) {
        guard !path.isEmpty else { throw NormCacheError(.invalidArgument, "empty cache path") }
        guard !path.utf8.contains(0) else { throw NormCacheError(.invalidArgument, "cache path contains a NUL byte") }
        var status = stat()
        guard stat(path, &status) == 0 else { throw failure(path, "cannot stat it", errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw NormCacheError(.invalidArgument, "cannot compact '\(path)': not a regular file") }
        let identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        return try EnvironmentRegistry.whileClosedHere(identity, path: path) { () throws(NormCacheError) in
            let lockPath = path + "-lock"
            let lockExisted = access(lockPath, F_OK) == 0
            let claim = try LockFileClaim(path: lockPath, cache: path, mode: status.st_mode & 0o777)
            let temporary = "\(path).compact-\(getpid())"
            unlink(temporary)
            do throws(NormCacheError) {
                try copy(path, fileSize: Int(status.st_size), to: temporary)
            } catch {
                unlink(temporary)
                if error.code == .notACache, !lockExisted { unlink(lockPath) }
                throw error
            }
            var compacted = stat()
            guard stat(temporary, &compacted) == 0, rename(temporary, path) == 0 else {
                let reason = errno
                unlink(temporary)
                throw failure(path, "cannot replace it with its compacted copy", reason)
            }
            syncDirectory(of: path)
            do throws(LMDBError) {
                _ = try LMDBEnvironment(
                    path: path, flags: [.noSubdirectory], mapSize: 0, maxReaders: maxReaders,
                    maxDatabases: 4, mode: 0)
            } catch {
                claim.spoil()
                throw NormCacheError(error, path: path, doing: "opening the compacted cache")
            }
            _ = consume claim
            return (Int(status.st_size), Int(compacted.st_size))
        }
    }

    /// Copies the cache file at `path` (`fileSize` bytes), compacted, to `temporary`,
    /// after checking that it is a whole cache of a format this library reads.
    private static func copy(_ path: String, fileSize: Int, to temporary: String) throws(NormCacheError) {
        guard fileSize > 0 else { throw CacheFileCheck.notACache(path, "an empty file, not made a cache yet: nothing to compact") }
        let source: LMDBEnvironment
        do throws(LMDBError) {
            source = try LMDBEnvironment(
                path: path, flags: [.noSubdirectory, .readOnly, .noLock], mapSize: 0,
                maxReaders: 1, maxDatabases: 4, mode: 0)
        } catch {
            throw error.status == .invalid || error.status == .versionMismatch
                ? CacheFileCheck.notACache(path, "not an LMDB file")
                : NormCacheError(error, path: path, doing: "compacting the cache")
        }
        try CacheFileCheck.checkLength(CacheFileCheck.usedBytes(source), fileSize: fileSize, path: path)
        try checkFormatVersion(source, path)
        do throws(LMDBError) {
            try source.copy(to: temporary, compacting: true)
        } catch {
            throw NormCacheError(error, path: path, doing: "compacting the cache")
        }
    }

    /// Refuses a file without normcache's meta database or its format version.
    private static func checkFormatVersion(_ source: LMDBEnvironment, _ path: String) throws(NormCacheError) {
        let failure = { (error: LMDBError) -> NormCacheError in
            error.status == .incompatible
                ? CacheFileCheck.notACache(path, "a database of the file is not what normcache expects")
                : NormCacheError(error, path: path, doing: "reading the format version")
        }
        let txn: LMDBTransaction
        do throws(LMDBError) { txn = try source.begin(readOnly: true) } catch { throw failure(error) }
        defer { txn.abort() }
        let meta: LMDBDatabase
        do throws(LMDBError) {
            meta = try txn.open(database: "meta", create: false)
        } catch {
            throw error.status == .notFound ? CacheFileCheck.notACache(path, "an LMDB file without normcache's meta database") : failure(error)
        }
        try CacheFileCheck.checkFormatVersion(path: path) { () throws(NormCacheError) in
            do throws(LMDBError) {
                return try CacheFileCheck.formatKey.withBytes { (key) throws(LMDBError) in try txn.get(meta, key).map(Array.init) }
            } catch {
                throw failure(error)
            }
        }
    }

    private static func failure(_ path: String, _ what: String, _ reason: Int32) -> NormCacheError {
        NormCacheError(.storage, "cannot compact '\(path)': \(what): \(String(cString: strerror(reason)))")
    }

    /// Syncs the directory holding `path`, so that the rename survives a crash.
    private static func syncDirectory(of path: String) {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let directory = slash.map { $0 == path.utf8.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
