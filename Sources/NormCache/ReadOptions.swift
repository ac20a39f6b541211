/// How a read judges stale data and what it reports (`NormalizedCache.read`).
public struct ReadOptions: Equatable, Sendable {
    /// On a miss, return the data with the missing parts null as well.
    public var partial: Bool
    /// How many seconds past its expiry a stale field may be and still be returned
    /// (the result is then `.stale`, listing it); nil, the default: a stale field is a
    /// miss.
    public var maxStale: UInt64?
    /// Report the oldest written-at time and the earliest expiry of the fields used.
    public var reportingFreshness: Bool
    /// Count every field fresh, whatever its age or expiry (absent data still misses):
    /// what a re-read that must not trigger a fetch wants (`NORMCACHE_READ_IGNORE_FRESHNESS`).
    public var ignoringFreshness: Bool

    /// Options of every part; the defaults read all or nothing, fresh only.
    public init(partial: Bool = false, maxStale: UInt64? = nil, reportingFreshness: Bool = false, ignoringFreshness: Bool = false) {
        self.partial = partial
        self.maxStale = maxStale
        self.reportingFreshness = reportingFreshness
        self.ignoringFreshness = ignoringFreshness
    }
}
