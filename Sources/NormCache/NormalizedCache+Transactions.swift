extension NormalizedCache {
    /// Begins a write transaction on this handle for the calling thread, as SQLite's
    /// `BEGIN IMMEDIATE`: until `commit()` or `rollBack()` on this thread, every call of
    /// this thread on this handle (writes, puts, removes, document writes, and reads,
    /// which see the transaction's own writes) runs inside it, and nothing of it is seen
    /// by other threads or processes. It holds the file's single writer lock: every other
    /// writer, of every process, waits until it ends; readers never wait and see the last
    /// commit. A call that fails inside it is undone alone; the earlier calls stay. The
    /// map cannot grow while it is open: `begin` grows it to leave 64 MiB free first,
    /// and a call that fills it fails with `.storage`. Closing the handle on this thread
    /// rolls it back; closing it on another waits for it to end.
    ///
    /// Fails with `.invalidArgument` when this thread already has a transaction open
    /// (transactions do not nest), `.readOnly` on a read-only handle.
    public func begin() throws(NormCacheError) {
        try store.begin()
    }

    /// Commits the calling thread's transaction on this handle, as durably as a single
    /// write. The transaction has ended when this returns: on an error nothing of it is
    /// written. `.invalidArgument` when this thread has none open on this handle.
    public func commit() throws(NormCacheError) {
        try store.commit()
    }

    /// Drops everything the calling thread's transaction on this handle wrote and ends
    /// it. `.invalidArgument` when this thread has none open on this handle.
    public func rollBack() throws(NormCacheError) {
        try store.rollBack()
    }

    /// Runs `body` in a transaction (see `begin()`): commits when it returns, rolls back
    /// when it throws (and rethrows its error).
    public func transaction<R>(_ body: (NormalizedCache) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        try begin()
        let result: R
        do throws(NormCacheError) {
            result = try body(self)
        } catch {
            try? rollBack()
            throw error
        }
        try commit()
        return result
    }
}
