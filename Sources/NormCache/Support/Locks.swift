import Glibc

/// A pthread read-write lock that prefers writers, so a steady stream of readers
/// cannot starve the rare exclusive holder. Not recursive: a thread that holds it must
/// not take it again.
///
/// A non-copyable value kept inline in its owner, not an object of its own: taking it
/// costs no reference count, which on a lock every reading thread takes would be two
/// more atomic writes to a line the threads share.
struct ReadWriteLock: ~Copyable, @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

    init() {
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` holding the lock shared.
    func withSharedAccess<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// Takes the lock shared until `unlockShared()` on the same thread: for a hold that
    /// spans several calls (a transaction's, `RecordStore.begin`).
    func lockShared() {
        pthread_rwlock_rdlock(lock)
    }

    /// Releases the shared hold `lockShared()` took.
    func unlockShared() {
        pthread_rwlock_unlock(lock)
    }

    /// Runs `body` holding the lock exclusively.
    func withExclusiveAccess<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}

/// A pthread mutex.
package final class Mutex: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    package func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Takes the mutex until `unlock()`: for `ForkSafety`'s prepare handler, which holds
    /// it across fork(), a transaction, which holds it across calls, and the lookups of
    /// the C interface's handles, which run on every call (`withLock` is generic, and
    /// unspecialized in another module).
    package func lock() {
        pthread_mutex_lock(mutex)
    }

    /// Releases the mutex taken by `lock()` (in the parent after fork(), or on the thread
    /// that took it).
    package func unlock() {
        pthread_mutex_unlock(mutex)
    }

    /// Makes the mutex free again in a child after fork(), where it is still held as
    /// the prepare handler took it.
    func reinitialise() {
        pthread_mutex_init(mutex, nil)
    }
}
