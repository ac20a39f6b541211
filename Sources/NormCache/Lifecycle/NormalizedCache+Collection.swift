import Glibc

extension NormalizedCache {
    /// Removes what no root reaches, and, as `options` ask, stale and dangling fields
    /// (see `GarbageCollector` and `GarbageCollectionOptions`), in one write transaction:
    /// readers never wait for it, writers of every process wait until it commits (its
    /// duration is `elapsedMicroseconds`). Every removal is noted like any write's, so the
    /// commit log and the watchers hear of it. A dry run reads in a read transaction and
    /// writes nothing. `.storage` when three attempts in a row met a possible hash
    /// collision (nothing is removed then).
    public func collectGarbage(_ options: GarbageCollectionOptions = GarbageCollectionOptions()) throws(NormCacheError) -> GarbageCollectionReport {
        try collectGarbage(options, markHash: nil)
    }

    /// `collectGarbage(_:)` with the mark set's hashes of some keys replaced by `markHash`
    /// (see `GarbageCollector.MarkHash`): internal, for the tests that force a collision.
    func collectGarbage(_ options: GarbageCollectionOptions, markHash: GarbageCollector.MarkHash?) throws(NormCacheError) -> GarbageCollectionReport {
        let started = Self.monotonicMicroseconds()
        let now = try clock.now()
        let attempts: UInt64 = 3
        for attempt in 0..<attempts {
            var report: GarbageCollectionReport?
            if options.dryRun {
                report = try store.read { (txn) throws(NormCacheError) in
                    try GarbageCollector.run(txn, options: options, now: now, attempt: attempt, markHash: markHash)
                }
            } else {
                var collided = false
                do {
                    report = try store.write { (txn) throws(NormCacheError) -> GarbageCollectionReport in
                        guard let report = try GarbageCollector.run(txn, options: options, now: now, attempt: attempt, markHash: markHash) else {
                            collided = true
                            throw NormCacheError(.storage, "garbage collection met a possible hash collision")
                        }
                        return report
                    }
                } catch  where collided {}
            }
            if var report {
                report.elapsedMicroseconds = Self.monotonicMicroseconds() - started
                return report
            }
        }
        throw NormCacheError(.storage, "garbage collection of '\(path)' met a possible hash collision in \(attempts) attempts; nothing was removed")
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
