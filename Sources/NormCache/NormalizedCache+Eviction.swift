/// Evicting records to bound the size of the data.
extension NormalizedCache {
    /// Evicts the least recently written records, whole, until the data of the cache
    /// (`CacheStats.dataBytes`) is at most `maxBytes` or only the root records are
    /// left, in one write transaction; reports what it evicted by key group. A record's
    /// age is the newest written-at time of its fields. Evicted records are simply
    /// gone: reads that need them miss. The commit log and the watchers see each
    /// eviction as a removal. `.invalidArgument` when `maxBytes` is negative.
    public func trim(toBytes maxBytes: Int) throws(NormCacheError) -> EvictionReport {
        guard maxBytes >= 0 else { throw NormCacheError(.invalidArgument, "max_bytes \(maxBytes) is negative") }
        return try store.write(checked: false) { (txn) throws(NormCacheError) in try Eviction.evict(txn, downTo: maxBytes) }
    }
}
