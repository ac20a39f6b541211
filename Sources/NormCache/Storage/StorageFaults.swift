import Glibc

/// Fault injection for tests, compiled into debug builds only (as swift-system's
/// mocking is; the `NORMCACHE_FAULT_INJECTION` condition): the LMDB calls at a chosen
/// point, made by the thread that asked, fail as a full map, a map another process
/// resized, a full reader table or a failing disk would, so that tests can check what
/// the storage layer does about each. In other builds no call is ever failed on purpose.
///
/// Faults belong to the thread that injects them, so tests that run in parallel do not
/// see each other's.
package enum StorageFaults {
    /// A point of the storage layer where a fault can be injected.
    package enum Point: Sendable {
        /// Beginning a read transaction (`mdb_txn_begin` with `MDB_RDONLY`).
        case beginRead
        /// Beginning a write transaction.
        case beginWrite
        /// Storing a value (`mdb_put`, `mdb_cursor_put`).
        case put
        /// Committing a write transaction (`mdb_txn_commit`); the transaction ends.
        case commit
        /// Copying the environment (`mdb_env_copy2`).
        case copy
    }
}

#if NORMCACHE_FAULT_INJECTION
extension StorageFaults {
    /// A failure to inject.
    package enum Failure: Sendable {
        /// The map is full (`MDB_MAP_FULL`).
        case mapFull
        /// Another process grew the map (`MDB_MAP_RESIZED`).
        case mapResized
        /// Every reader slot is taken (`MDB_READERS_FULL`).
        case readersFull
        /// The disk failed (`EIO`).
        case inputOutput
        /// The disk is full (`ENOSPC`).
        case diskFull
        /// LMDB could not allocate memory (`ENOMEM`).
        case outOfMemory

        fileprivate var status: Int32 {
            switch self {
            case .mapFull: LMDBStatus.mapFull.rawValue
            case .mapResized: LMDBStatus.mapResized.rawValue
            case .readersFull: LMDBStatus.readersFull.rawValue
            case .inputOutput: EIO
            case .diskFull: ENOSPC
            case .outOfMemory: ENOMEM
            }
        }
    }

    /// A fault waiting for its calls.
    private struct Armed {
        var thread: pthread_t
        var point: Point
        var status: Int32
        var remaining: Int
        var injected = 0

        func belongs(to thread: pthread_t, _ point: Point) -> Bool {
            pthread_equal(self.thread, thread) != 0 && self.point == point
        }
    }

    private static var lock: Mutex { ForkSafety.locks.faults }
    nonisolated(unsafe) private static var armed: [Armed] = []

    /// Runs `body` with the next `count` calls at `point` that this thread makes failing
    /// with `failure`; returns how many failures were injected and the error `body`
    /// threw, if it threw.
    package static func inject<E: Error>(_ failure: Failure, at point: Point, count: Int = 1,
                                         _ body: () throws(E) -> Void) -> (injected: Int, error: E?) {
        let thread = pthread_self()
        lock.withLock { armed.append(Armed(thread: thread, point: point, status: failure.status, remaining: count)) }
        var thrown: E?
        do throws(E) { try body() } catch { thrown = error }
        let injected = lock.withLock { () -> Int in
            guard let index = armed.lastIndex(where: { $0.belongs(to: thread, point) }) else { return 0 }
            return armed.remove(at: index).injected
        }
        return (injected, thrown)
    }

    /// The status to fail a call at `point` with, when this thread has a fault injected
    /// there; nil to make the call.
    static func injected(at point: Point) -> Int32? {
        let thread = pthread_self()
        return lock.withLock { () -> Int32? in
            guard let index = armed.lastIndex(where: { $0.belongs(to: thread, point) }), armed[index].remaining > 0 else { return nil }
            armed[index].remaining -= 1
            armed[index].injected += 1
            return armed[index].status
        }
    }
}
#else
extension StorageFaults {
    /// Always nil: the call is made.
    @inline(__always)
    static func injected(at point: Point) -> Int32? { nil }
}
#endif
