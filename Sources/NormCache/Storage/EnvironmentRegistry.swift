import Glibc

/// The environments open in this process, one per cache file (by device and inode),
/// so that every handle on a file shares one LMDB environment. Entries inherited from
/// a parent through fork() are not used: the child opens environments of its own.
enum EnvironmentRegistry {
    private static var lock: Mutex { ForkSafety.locks.registry }
    nonisolated(unsafe) private static var open: [FileIdentity: SharedEnvironment] = [:]

    /// The environment of the file at `path`, opened when this process has none yet,
    /// with one more handle counted on it. A file open read-only in this process cannot
    /// be opened for writing until it is closed; a handle asking for full durability
    /// raises a fast environment to full.
    static func acquire(path: String, options: CacheOptions) throws(NormCacheError) -> SharedEnvironment {
        try lock.withLock { () throws(NormCacheError) -> SharedEnvironment in
            var status = stat()
            if stat(path, &status) == 0,
               let shared = open[FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))],
               shared.belongsToThisProcess {
                guard !shared.readOnly || options.readOnly else {
                    throw NormCacheError(.invalidArgument, "'\(path)' is already open read-only in this process; close it before opening it for writing")
                }
                try shared.require(options.durability)
                shared.handles += 1
                return shared
            }
            let shared = try openUnreplaced(path: path, options: options)
            shared.handles = 1
            open[shared.identity] = shared
            return shared
        }
    }

    /// Opens the environment of the file at `path`, again when the file was replaced
    /// during the open (by `NormalizedCache.compact`): a read-only open opens the data
    /// file before it waits for the lock file, so it can hold the file that was renamed
    /// away, with the lock table made for the new one.
    private static func openUnreplaced(path: String, options: CacheOptions) throws(NormCacheError) -> SharedEnvironment {
        var attempt = 0
        while true {
            attempt += 1
            let before = identity(of: path)
            let shared: SharedEnvironment
            do throws(NormCacheError) {
                shared = try SharedEnvironment(path: path, options: options)
            } catch {
                guard attempt < 3, let before, identity(of: path) != before else { throw error }
                continue
            }
            guard attempt < 3, shared.identity != identity(of: path) else { return shared }
            shared.close()
        }
    }

    /// The device and inode of the file at `path`, or nil when there is none.
    private static func identity(of path: String) -> FileIdentity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Runs `body` while no handle of this process can open the file `identity`, after
    /// checking that none has it open now (`path` names it in the error).
    static func whileClosedHere<R>(_ identity: FileIdentity, path: String, _ body: () throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        try lock.withLock { () throws(NormCacheError) -> R in
            if let shared = open[identity], shared.belongsToThisProcess {
                throw NormCacheError(.invalidArgument, "'\(path)' is open in this process (\(shared.handles) handle\(shared.handles == 1 ? "" : "s")): close it before compacting it")
            }
            return try body()
        }
    }

    /// Counts one handle less on `shared`, closing it after its last handle.
    static func release(_ shared: SharedEnvironment) {
        lock.withLock {
            shared.handles -= 1
            guard shared.handles == 0 else { return }
            if open[shared.identity] === shared { open[shared.identity] = nil }
            // An environment inherited through fork() is the parent's: the child leaves it alone.
            if shared.belongsToThisProcess { shared.close() }
        }
    }
}
