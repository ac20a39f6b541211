import Glibc

/// The global locks of the process, kept so that fork() finds them free.
///
/// A child made by fork() has only the thread that called it: a lock that another
/// thread of the parent held at that moment stays held in the child for ever, and the
/// child's first call that needs it hangs (a child's `normcache_open` did, when a parent
/// thread was inside `normcache_open` or `normcache_close` at the fork). Handlers
/// registered once with `pthread_atfork`, when the locks are first used, take every
/// lock below before fork() in the order of `all`, release them after it in the parent,
/// and initialise them afresh in the child, so that fork() happens while no thread of
/// the parent holds one.
///
/// No thread holds one of these locks while it takes another, so any fixed order is
/// free of deadlock; this one is the registry (held across an LMDB open or close), the
/// handle tables of the C interface, the pool of interrupt flags, then the fault
/// injection of debug builds. Not here, because a child never takes them: the locks of one open environment or store
/// (a child never uses the parent's environments, `SharedEnvironment.belongsToThisProcess`,
/// and closes an inherited store without its lock) and the block pool's (a child
/// neither takes nor keeps blocks, `BlockPool`). Per-thread state (the C interface's
/// last error message, the flag its checks of an interrupt look at) lives under pthread
/// keys and needs no lock.
package final class ForkSafety: Sendable {
    /// The locks of this process, with the fork handlers registered.
    package static let locks = ForkSafety()

    /// The lock of the open environments (`EnvironmentRegistry`).
    let registry = Mutex()
    /// The lock of the C interface's table of cache handles.
    package let cacheHandles = Mutex()
    /// The lock of the C interface's table of prepared operations.
    package let operationHandles = Mutex()
    /// The lock of the C interface's table of watchers.
    package let watchHandles = Mutex()
    /// The lock of the pool of interrupt flags (`InterruptFlag`).
    let interruptFlags = Mutex()
    #if NORMCACHE_FAULT_INJECTION
    /// The lock of the faults armed for tests (`StorageFaults`).
    let faults = Mutex()
    #endif

    /// Every lock, in the order fork() takes them.
    private var all: [Mutex] {
        #if NORMCACHE_FAULT_INJECTION
        [registry, cacheHandles, operationHandles, watchHandles, interruptFlags, faults]
        #else
        [registry, cacheHandles, operationHandles, watchHandles, interruptFlags]
        #endif
    }

    /// How many fork()s separate this process from the one that loaded the library.
    /// Only the child handler changes it, while the child has one thread, so every
    /// thread reads it without a lock.
    package static var generation: UInt64 { forks }

    /// `generation`, with the fork handlers registered first, so that every fork() after
    /// it changes the number. What must not be used in a child made by fork() notes this
    /// when made and compares `generation` with it when used: a load, where getpid() is a
    /// system call on every use (glibc caches no pid since 2.25).
    package static var registeredGeneration: UInt64 {
        _ = locks
        return forks
    }

    nonisolated(unsafe) private static var forks: UInt64 = 0

    private init() {
        pthread_atfork({
            for lock in ForkSafety.locks.all { lock.lock() }
        }, {
            for lock in ForkSafety.locks.all.reversed() { lock.unlock() }
        }, {
            ForkSafety.forks += 1
            for lock in ForkSafety.locks.all { lock.reinitialise() }
        })
    }
}
