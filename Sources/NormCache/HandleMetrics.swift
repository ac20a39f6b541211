/// What one handle has done since it opened (`NormalizedCache.metrics()`).
///
/// A read is a call that reads data and reports it found or not: `read`,
/// `readFragment`, the cache reads of `execute`, `record` (get), `document` and the
/// cache reads of `executeDocument`. A hit returned all the data fresh; a stale read
/// returned it with some of it stale within `maxStale`; a miss lacked something (or
/// held it too stale). A watcher's reads are not counted. A write is a call that
/// committed (put, write, fragment and document writes, removes, clear, invalidation,
/// refresh, gc, trim, import), whether it changed anything or not; changed fields count
/// what the commits changed, a record created, replaced or removed whole, a key prefix
/// removed or a clear counting as its fields when known and as one otherwise.
public struct HandleMetrics: Equatable, Sendable {
    /// Reads, of every outcome.
    public var reads: Int
    /// Reads that returned all the data, fresh.
    public var hits: Int
    /// Reads that lacked data, or held it too stale.
    public var misses: Int
    /// Reads that returned data with some of it stale (within `maxStale`).
    public var staleReads: Int
    /// Writes committed.
    public var writes: Int
    /// Fields the committed writes changed.
    public var changedFields: Int

    /// Counts of every part.
    public init(reads: Int, hits: Int, misses: Int, staleReads: Int, writes: Int, changedFields: Int) {
        self.reads = reads
        self.hits = hits
        self.misses = misses
        self.staleReads = staleReads
        self.writes = writes
        self.changedFields = changedFields
    }

    /// The counts as the JSON object of `normcache_metrics`.
    public var json: [UInt8] {
        var object = JSONObject()
        object.add(["reads": reads, "hits": hits, "misses": misses, "stale_reads": staleReads, "writes": writes, "changed_fields": changedFields])
        return object.bytes
    }
}
