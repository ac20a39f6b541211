/// Per-handle counts of reads and writes.
extension NormalizedCache {
    /// What this handle has read and written since it opened (see `HandleMetrics` for
    /// what counts).
    public func metrics() -> HandleMetrics {
        store.counters.snapshot
    }
}
