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
            let shared = try SharedEnvironment(path: path, options: options)
            shared.handles = 1
            open[shared.identity] = shared
            return shared
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
