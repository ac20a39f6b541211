import Glibc

/// Watchers and the change feed: what changed, in this process and in others.
extension NormalizedCache {
    /// Watches `operation` (with `key`: a fragment read at that record) with
    /// `variables`: `callback` gets the current result first, then, after each commit
    /// by any handle of this process that changes a field or record the last read used
    /// (or looked for and missed), the new result — when it differs from the last one
    /// it got. Other processes' commits reach it through `dispatchChanges`.
    ///
    /// A watcher's reads never miss for age: stale data is returned and listed in
    /// `stale` (a read with an unbounded `maxStale`), and `earliestExpiry` says when
    /// the data it used starts to go stale, for the host to refresh on its own timer.
    /// A watcher never fetches. Results differ when their status, data, missing or
    /// stale fields do; the times alone do not count.
    ///
    /// Callbacks of one file run one at a time, after the commit, with no lock held: on
    /// the thread whose commit (or `watch`, or `dispatchChanges`) finds no delivery in
    /// progress; a callback may read, write, watch and cancel. The first result is
    /// delivered before this returns unless another thread is delivering. The watch
    /// ends with `Watcher.cancel` or when this handle closes.
    public func watch(_ operation: PreparedOperation, variables: UnsafeRawBufferPointer, at key: String? = nil,
                      _ callback: @escaping Watcher.Callback) throws(NormCacheError) -> Watcher {
        if let key {
            try Self.checkFragment(fragment: operation, key: key)
        } else {
            _ = try Self.rootKey(of: operation)
        }
        _ = try operation.context(variables: variables)
        try store.checkOpen()
        let watcher = Watcher(cache: self, operation: operation, fragmentKey: key, variables: Array(variables), hub: store.changeHub,
                              callback: callback)
        store.changeHub.add(watcher, store: store)
        return watcher
    }

    /// `watch(_:variables:at:_:)` with variables as a JSON `String` ("" for none).
    public func watch(_ operation: PreparedOperation, variables: String = "", at key: String? = nil,
                      _ callback: @escaping Watcher.Callback) throws(NormCacheError) -> Watcher {
        try variables.withUTF8Bytes { (bytes) throws(NormCacheError) in try watch(operation, variables: bytes, at: key, callback) }
    }

    /// A watcher's read: its result (unbounded `maxStale`, freshness reported, partial
    /// data on a miss), what it used, and the commit it saw.
    func watchRead(_ watcher: Watcher) throws(NormCacheError) -> (ReadResult, [UInt64], UInt64) {
        let options = ReadOptions(partial: true, maxStale: .max, reportingFreshness: true)
        let key: String
        if let fragmentKey = watcher.fragmentKey { key = fragmentKey } else { key = try Self.rootKey(of: watcher.operation) }
        return try watcher.variables.withBytes { (variables) throws(NormCacheError) in
            try interruptible { () throws(NormCacheError) in
                let (context, freshness) = try readContext(watcher.operation, variables: variables, options: options)
                defer { watcher.operation.finished(with: context) }
                return try store.read { (txn) throws(NormCacheError) in
                    try read(watcher.operation, at: key, in: txn, context: context, freshness: freshness, tracking: true) { (reader) in
                        (Self.result(of: reader, partial: true), reader.dependencies?.hashes ?? [], txn.txn.id)
                    }
                }
            }
        }
    }

    /// The id of the newest commit to the file, by any process, that a read begun now
    /// sees: a number that grows with every commit, cheap to ask (a read transaction's
    /// begin, no system call).
    public func lastCommit() throws(NormCacheError) -> UInt64 {
        try store.lastCommit()
    }

    /// What the commits after `commit` changed, from the commit log in the file.
    public func changes(since commit: UInt64) throws(NormCacheError) -> CommitChanges {
        try store.read { (txn) throws(NormCacheError) -> CommitChanges in
            let through = txn.txn.id
            guard through > commit else { return CommitChanges(through: through, complete: true, commits: []) }
            guard txn.hasCommitLog else { return CommitChanges(through: through, complete: false, commits: []) }
            var commits: [LoggedCommit] = []
            let complete = try txn.logFloor() <= commit
            try txn.forEachLoggedCommit(after: commit) { (id, entry) throws(NormCacheError) in
                var logged = LoggedCommit(id: id)
                let whole = ChangeSet.forEachChange(in: entry) { change in
                    switch change {
                    case .field(let record, let field):
                        logged.fields.append(String(decoding: record, as: UTF8.self) + "." + String(decoding: field, as: UTF8.self))
                    case .record(let record): logged.records.append(String(decoding: record, as: UTF8.self))
                    case .prefix(let prefix): logged.prefixes.append(String(decoding: prefix, as: UTF8.self))
                    case .everything: logged.all = true
                    }
                }
                guard whole else { throw txn.damaged(Array("commit log entry \(id)".utf8)) }
                commits.append(logged)
            }
            return CommitChanges(through: through, complete: complete, commits: commits)
        }
    }

    /// Waits until the file has a commit newer than `commit`, by any process, and
    /// returns the newest commit's id; nil when `timeoutMilliseconds` pass first (0:
    /// just look). It polls `lastCommit` (LMDB has no commit notification a process can
    /// wait on portably): every 0.1 ms at first, backing off to every 5 ms, so a commit
    /// is seen within about 5 ms. `interrupt` stops it (`.interrupted`).
    public func waitForCommit(after commit: UInt64, timeoutMilliseconds: Int) throws(NormCacheError) -> UInt64? {
        guard timeoutMilliseconds >= 0 else {
            throw NormCacheError(.invalidArgument, "timeout \(timeoutMilliseconds) ms is negative")
        }
        return try interruptible { () throws(NormCacheError) -> UInt64? in
            let deadline = Self.monotonicMicroseconds() + UInt64(timeoutMilliseconds) * 1000
            var pause: UInt32 = 100
            while true {
                let newest = try store.lastCommit()
                if newest > commit { return newest }
                try InterruptCheck.now()
                let now = Self.monotonicMicroseconds()
                guard now < deadline else { return nil }
                usleep(min(pause, UInt32(clamping: deadline - now)))
                pause = min(pause * 2, 5000)
            }
        }
    }

    /// Hands the commits of other processes since the last ones the watchers of this
    /// file heard of to those watchers (this process's own commits reach them by
    /// themselves); returns the newest commit now delivered. Call it when
    /// `waitForCommit` returns, or on a timer.
    @discardableResult
    public func dispatchChanges() throws(NormCacheError) -> UInt64 {
        let newest = try store.lastCommit()
        store.changeHub.dispatchExternal(through: newest, store: store)
        return newest
    }

    /// Microseconds of the monotonic clock.
    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
