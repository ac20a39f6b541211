import Glibc

/// An exclusive claim on a cache's lock file, the way LMDB takes one: a write lock
/// (`fcntl` `F_SETLK`) on its first byte. Every process that has the cache open holds a
/// read lock there for as long as it does (LMDB takes it in `mdb_env_open` and keeps
/// it until `mdb_env_close`), so the claim succeeds only when no other process has the
/// file open, and while it is held a process that opens the file waits in
/// `mdb_env_open` until it ends.
///
/// POSIX record locks belong to the process, not the descriptor: closing any
/// descriptor of the lock file drops them all, LMDB's included. The claim's descriptor
/// is closed when the claim ends, which must come after every environment this process
/// opened on the file is closed.
struct LockFileClaim: ~Copyable {
    private let fd: Int32

    /// Claims the lock file at `path` (creating it, with `mode`, when no process ever
    /// opened the cache). Fails with `.storage` naming a process that has the cache open.
    init(path: String, cache: String, mode: mode_t) throws(NormCacheError) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode)
        guard fd >= 0 else {
            throw NormCacheError(.storage, "cannot compact '\(cache)': cannot open its lock file '\(path)': \(String(cString: strerror(errno)))")
        }
        var lock = Self.firstByte(F_WRLCK)
        guard fcntl(fd, F_SETLK, &lock) != 0 else { return }
        let reason = errno
        var holder = Self.firstByte(F_WRLCK)
        let who = fcntl(fd, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK ? " (pid \(holder.l_pid))" : ""
        close(fd)
        guard reason == EAGAIN || reason == EACCES else {
            throw NormCacheError(.storage, "cannot compact '\(cache)': cannot lock '\(path)': \(String(cString: strerror(reason)))")
        }
        throw NormCacheError(.storage, "cannot compact '\(cache)': another process has it open\(who); compact it when no process uses it")
    }

    /// Makes the lock file unusable to processes waiting to open the cache: they fail
    /// to open it, and the next open builds a new lock table (for when the file was
    /// replaced but its lock table could not be made anew).
    func spoil() { _ = ftruncate(fd, 0) }

    /// Ends the claim (and every other lock this process holds on the lock file).
    deinit { close(fd) }

    private static func firstByte(_ type: Int32) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 1
        return lock
    }
}
