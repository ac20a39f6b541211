/// The watchers of one cache file in this process, whichever handle made them, and
/// the commits on their way to them.
///
/// Each commit that changed data (`Commit`) — made here, or by another process and
/// found in the commit log (`dispatchExternal`) — is matched against an index from
/// what reads used (`ReadDependencies` hashes) to watchers; only the watchers it
/// touches read again. A field change wakes the watchers that used that field, or
/// looked for its record and missed it; a whole record's removal, those that used the
/// record; a prefix removal or a `clear`, all of them.
///
/// Delivery runs one thread at a time: the thread that finds no delivery in progress
/// delivers, and keeps delivering what other threads' commits queue meanwhile, so
/// callbacks of one file never run at once, and a callback that writes, watches or
/// cancels finds its own commit queued for after it returns. No lock is held while a
/// watcher reads or its callback runs.
final class ChangeHub: @unchecked Sendable {
    private let lock = Mutex()
    /// The newest commit whose changes every watcher has been matched against.
    private var seen: UInt64 = 0
    private var watchers: [ObjectIdentifier: Watcher] = [:]
    /// The watchers by the hashes of what their last reads used.
    private var index: [UInt64: Set<ObjectIdentifier>] = [:]
    private var pending: [Pending] = []
    private var delivering = false

    /// What waits for delivery.
    private enum Pending {
        /// A commit of this process.
        case local(Commit)
        /// The commits of every process up to this id.
        case external(through: UInt64)
        /// A new watcher's first read.
        case first(Watcher)
    }

    /// What a change touches: watchers by a hash, or every watcher.
    private enum Touch {
        case hash(UInt64)
        case everyWatcher
    }

    // MARK: Watchers

    /// Adds `watcher`, whose first read is delivered with the next commits.
    func add(_ watcher: Watcher, store: RecordStore) {
        let deliver = lock.withLock { () -> Bool in
            watchers[ObjectIdentifier(watcher)] = watcher
            pending.append(.first(watcher))
            return claimDelivery()
        }
        if deliver { drain(store) }
    }

    /// Ends `watcher`.
    func cancel(_ watcher: Watcher) {
        lock.withLock {
            guard !watcher.isCancelledUnderLock else { return }
            watcher.isCancelledUnderLock = true
            let id = ObjectIdentifier(watcher)
            watchers[id] = nil
            unindex(id, watcher.dependencies)
        }
    }

    /// Whether `watcher` has ended.
    func isCancelled(_ watcher: Watcher) -> Bool {
        lock.withLock { watcher.isCancelledUnderLock }
    }

    /// Ends the watchers that read through `cache`.
    func cancelWatchers(of cache: NormalizedCache) {
        let ended = lock.withLock { watchers.values.filter { $0.cache === cache || $0.cache == nil } }
        for watcher in ended { cancel(watcher) }
    }

    /// The number of watchers.
    var count: Int { lock.withLock { watchers.count } }

    // MARK: Commits

    /// Hands a commit of this process to the watchers it touches.
    func published(_ commit: Commit, store: RecordStore) {
        let deliver = lock.withLock { () -> Bool in
            guard !watchers.isEmpty else {
                seen = max(seen, commit.id)
                return false
            }
            pending.append(.local(commit))
            return claimDelivery()
        }
        if deliver { drain(store) }
    }

    /// Hands the commits of every process up to `through` (from the commit log) to the
    /// watchers they touch; returns whether there were any watchers.
    @discardableResult
    func dispatchExternal(through: UInt64, store: RecordStore) -> Bool {
        let deliver = lock.withLock { () -> Bool? in
            guard !watchers.isEmpty else {
                seen = max(seen, through)
                return nil
            }
            pending.append(.external(through: through))
            return claimDelivery()
        }
        if deliver == true { drain(store) }
        return deliver != nil
    }

    /// Takes the delivery when none is in progress (under the lock).
    private func claimDelivery() -> Bool {
        guard !delivering else { return false }
        delivering = true
        return true
    }

    /// Delivers what is pending until nothing is.
    private func drain(_ store: RecordStore) {
        while true {
            let batch = lock.withLock { () -> [Pending] in
                defer { pending = [] }
                if pending.isEmpty { delivering = false }
                return pending
            }
            if batch.isEmpty { return }
            for item in batch { deliver(item, store: store) }
        }
    }

    private func deliver(_ item: Pending, store: RecordStore) {
        switch item {
        case .first(let watcher):
            refresh([watcher])
        case .local(let commit):
            let from = lock.withLock { seen }
            guard commit.id > from else { return }
            var touches: [(Touch, UInt64)] = []
            if commit.id > from + 1 { touches = loggedTouches(after: from, through: commit.id - 1, store: store).touches }
            commit.changes.forEachChange { change in Self.touches(of: change, commit: commit.id, into: &touches) }
            refresh(touched(touches, seen: commit.id))
        case .external(let through):
            let from = lock.withLock { seen }
            guard through > from else { return }
            let logged = loggedTouches(after: from, through: through, store: store)
            refresh(touched(logged.touches, seen: logged.reached))
        }
    }

    /// What the logged commits after `after`, up to `through`, touch, and the newest
    /// commit that covers (`through`, or older when the read's snapshot is): everything,
    /// when the log cannot tell (it lacks commits after `after`, or cannot be read).
    private func loggedTouches(after: UInt64, through: UInt64, store: RecordStore) -> (touches: [(Touch, UInt64)], reached: UInt64) {
        var touches: [(Touch, UInt64)] = []
        var reached = through
        do throws(NormCacheError) {
            try store.read { (txn) throws(NormCacheError) in
                reached = min(through, txn.txn.id)
                guard txn.hasCommitLog, try txn.logFloor() <= after else {
                    touches.append((.everyWatcher, through))
                    return
                }
                try txn.forEachLoggedCommit(after: after) { (id, entry) throws(NormCacheError) in
                    guard id <= through else { return }
                    let whole = ChangeSet.forEachChange(in: entry) { change in Self.touches(of: change, commit: id, into: &touches) }
                    if !whole { touches.append((.everyWatcher, id)) }
                }
            }
        } catch {
            touches.append((.everyWatcher, through))
        }
        return (touches, reached)
    }

    /// Notes what `change`, of commit `commit`, touches.
    private static func touches(of change: ChangeSet.Change, commit: UInt64, into touches: inout [(Touch, UInt64)]) {
        switch change {
        case .field(let record, let field):
            touches.append((.hash(ReadDependencies.field(record: record, field: field)), commit))
            touches.append((.hash(ReadDependencies.absentRecord(record)), commit))
        case .record(let record):
            touches.append((.hash(ReadDependencies.record(record)), commit))
        case .prefix, .everything:
            touches.append((.everyWatcher, commit))
        }
    }

    /// The watchers `touches` wake: those whose last read saw an older commit than the
    /// one that touched them. Marks the commits through `seen` as matched.
    private func touched(_ touches: [(Touch, UInt64)], seen newest: UInt64) -> [Watcher] {
        lock.withLock { () -> [Watcher] in
            seen = max(seen, newest)
            var woken = Set<ObjectIdentifier>()
            var order: [Watcher] = []
            func wake(_ id: ObjectIdentifier, _ commit: UInt64) {
                guard let watcher = watchers[id], watcher.snapshot < commit, woken.insert(id).inserted else { return }
                order.append(watcher)
            }
            for (touch, commit) in touches {
                switch touch {
                case .hash(let hash):
                    for id in index[hash] ?? [] { wake(id, commit) }
                case .everyWatcher:
                    for id in watchers.keys { wake(id, commit) }
                }
            }
            return order
        }
    }

    /// Reads `woken` again, delivers what changed, and re-indexes them.
    private func refresh(_ woken: [Watcher]) {
        for watcher in woken where !isCancelled(watcher) {
            guard let read = watcher.refresh() else {
                cancel(watcher)
                continue
            }
            lock.withLock {
                guard !watcher.isCancelledUnderLock else { return }
                let id = ObjectIdentifier(watcher)
                unindex(id, watcher.dependencies)
                watcher.dependencies = read.dependencies
                watcher.snapshot = read.snapshot
                for hash in read.dependencies { index[hash, default: []].insert(id) }
            }
        }
    }

    /// Removes `id` from the index entries of `hashes` (under the lock).
    private func unindex(_ id: ObjectIdentifier, _ hashes: [UInt64]) {
        for hash in hashes {
            guard var ids = index[hash] else { continue }
            ids.remove(id)
            index[hash] = ids.isEmpty ? nil : ids
        }
    }
}
