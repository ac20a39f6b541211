import Synchronization

/// The running counts of one handle's reads and writes (`NormalizedCache.metrics`):
/// relaxed atomic adds, one a read and two a write, so counting costs the hot paths
/// nothing a profile sees. The reads are the sum of their outcomes, and the write
/// counts sit a cache line away from the read counts, so that a writing thread does
/// not take the readers' line from them on every commit. A non-copyable value kept
/// inline in its handle, so that counting costs no reference count either.
struct HandleCounters: ~Copyable, Sendable {
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let staleReads = Atomic<Int>(0)
    /// A cache line between the read and the write counts.
    private let separation: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    private let writes = Atomic<Int>(0)
    private let changedFields = Atomic<Int>(0)

    /// Counts a read that ended with `status`.
    func countRead(_ status: ReadResult.Status) {
        switch status {
        case .complete: hits.add(1, ordering: .relaxed)
        case .stale: staleReads.add(1, ordering: .relaxed)
        case .miss: misses.add(1, ordering: .relaxed)
        }
    }

    /// Counts `calls` committed writes that changed `changes` fields (a transaction's
    /// calls count as they succeed, its changes when it commits).
    func countWrite(changing changes: Int, calls: Int = 1) {
        writes.add(calls, ordering: .relaxed)
        changedFields.add(changes, ordering: .relaxed)
    }

    /// The counts now.
    var snapshot: HandleMetrics {
        let hits = hits.load(ordering: .relaxed), misses = misses.load(ordering: .relaxed)
        let staleReads = staleReads.load(ordering: .relaxed)
        return HandleMetrics(reads: hits + misses + staleReads, hits: hits, misses: misses, staleReads: staleReads,
                      writes: writes.load(ordering: .relaxed), changedFields: changedFields.load(ordering: .relaxed))
    }
}
