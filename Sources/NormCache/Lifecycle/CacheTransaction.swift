import Glibc

/// A write transaction of several calls on one handle (`NormalizedCache.begin` to
/// `commit` or `rollBack`), bound to the thread that began it, as LMDB binds a write
/// transaction. The thread finds it under a pthread key: every call of that thread on
/// that handle runs inside it, calls of other threads do not see it. A thread holds at
/// most one. A child made by fork() inherits the key's value but not the transaction
/// (`current` checks the process); a thread that ends with one open rolls it back.
final class CacheTransaction {
    /// The LMDB write transaction, holding the file's writer lock.
    let txn: LMDBTransaction
    /// The handle it belongs to, kept open until it ends.
    let store: RecordStore
    /// What its calls changed, logged and told to the watchers once, at its commit.
    let changes = ChangeSet()
    private let process = getpid()

    init(txn: LMDBTransaction, store: RecordStore) {
        self.txn = txn
        self.store = store
    }

    /// The pthread key of the calling thread's transaction; its destructor rolls back
    /// the transaction of a thread that ends with one open.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            let open = Unmanaged<CacheTransaction>.fromOpaque(pointer).takeRetainedValue()
            if open.process == getpid() { open.store.rollBack(open) }
        }
        return key
    }()

    /// The transaction the calling thread has open in this process, or nil.
    static var current: CacheTransaction? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        let open = Unmanaged<CacheTransaction>.fromOpaque(pointer).takeUnretainedValue()
        return open.process == getpid() ? open : nil
    }

    /// Makes `open` the calling thread's transaction (nil: it has none).
    static func setCurrent(_ open: CacheTransaction?) {
        if let pointer = pthread_getspecific(key) { Unmanaged<CacheTransaction>.fromOpaque(pointer).release() }
        pthread_setspecific(key, open.map { Unmanaged.passRetained($0).toOpaque() })
    }
}
