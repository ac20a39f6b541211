import Synchronization

/// The running counts of one handle's reads and writes (`NormalizedCache.metrics`):
/// relaxed atomic adds, one or two per call, so counting costs the hot paths nothing
/// a profile sees.
final class HandleCounters: Sendable {
    private let reads = Atomic<Int>(0)
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let staleReads = Atomic<Int>(0)
    private let writes = Atomic<Int>(0)
    private let changedFields = Atomic<Int>(0)

    /// Counts a read that ended with `status`.
    func countRead(_ status: ReadResult.Status) {
        reads.add(1, ordering: .relaxed)
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
        HandleMetrics(reads: reads.load(ordering: .relaxed), hits: hits.load(ordering: .relaxed),
                      misses: misses.load(ordering: .relaxed), staleReads: staleReads.load(ordering: .relaxed),
                      writes: writes.load(ordering: .relaxed), changedFields: changedFields.load(ordering: .relaxed))
    }
}
