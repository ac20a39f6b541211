/// What a read found: the data, or what the cache lacks, and how fresh what it used is.
///
/// `status` sums it up: `.complete` when every field the operation selects was in the
/// cache and fresh; `.stale` when every field was there but some were stale by no more
/// than the read's `maxStale` (they are returned, and listed in `stale`); `.miss` when
/// something was absent, or stale beyond `maxStale` (listed in `missing`).
public struct ReadResult: Equatable, Sendable {
    /// How a read went.
    public enum Status: Equatable, Sendable {
        /// All the data, all of it fresh.
        case complete
        /// All the data, some of it stale within the read's `maxStale`.
        case stale
        /// Something was absent or too stale.
        case miss
    }

    /// How the read went.
    public var status: Status
    /// The `data` object as JSON: on `.complete` and `.stale` the data; on `.miss` the
    /// data with the missing parts null when partial data was asked for, else nil.
    public var data: [UInt8]?
    /// What the cache lacks or holds too stale, in document order (empty unless `.miss`).
    public var missing: [FieldReport]
    /// The stale fields returned, in document order (empty unless `.stale`).
    public var stale: [FieldReport]
    /// The written-at time of the oldest field the read used (seconds since 1970), nil
    /// when it used none. Reported by reads that ask for freshness (`reportingFreshness`).
    public var oldestWrittenAt: UInt64?
    /// The earliest time a field the read used becomes (or became) stale, nil when none
    /// ever does. Reported by reads that ask for freshness (`reportingFreshness`).
    public var earliestExpiry: UInt64?
    /// The entity-tag a document was stored with (`WriteOptions.etag`), to revalidate it
    /// with `If-None-Match`; nil for a document without one and for every other read.
    public var etag: String?

    /// A result of every part.
    public init(status: Status, data: [UInt8]?, missing: [FieldReport] = [], stale: [FieldReport] = [],
                oldestWrittenAt: UInt64? = nil, earliestExpiry: UInt64? = nil, etag: String? = nil) {
        self.status = status
        self.data = data
        self.missing = missing
        self.stale = stale
        self.oldestWrittenAt = oldestWrittenAt
        self.earliestExpiry = earliestExpiry
        self.etag = etag
    }
}

/// Why a read could not use a field.
public enum MissReason: String, Equatable, Sendable {
    /// The field, or the record, is not in the cache.
    case absent
    /// The field is older than its max age, or past the expiry its write gave.
    case stale
    /// The field was invalidated (`NormalizedCache.invalidate`).
    case invalidated
}

/// A part of the data a read could not return fresh: an entry of `missing` (absent,
/// stale or invalidated) or of `stale` (returned stale because the read allowed it).
public struct FieldReport: Equatable, Sendable {
    /// Where in the data: a missing record at the path of the reference to it.
    public var path: [ResponsePathSegment]
    /// Why.
    public var reason: MissReason
    /// The record the read looked in (for an absent record, the record itself).
    public var record: String
    /// The storage key of the field it looked for (`feed(first:3)`); nil when the
    /// record itself is absent.
    public var field: String?
    /// For a stale or invalidated field: when it was written, and when it became stale
    /// (seconds since 1970).
    public var writtenAt: UInt64?
    public var expiredAt: UInt64?

    /// A report of every detail.
    public init(path: [ResponsePathSegment], reason: MissReason, record: String, field: String?,
                writtenAt: UInt64? = nil, expiredAt: UInt64? = nil) {
        self.path = path
        self.reason = reason
        self.record = record
        self.field = field
        self.writtenAt = writtenAt
        self.expiredAt = expiredAt
    }
}

/// One step of a response path: a response key or a list index.
public enum ResponsePathSegment: Equatable, Hashable, Sendable, CustomStringConvertible {
    case key(String)
    case index(Int)

    /// The response key, or the index in decimal.
    public var description: String {
        switch self {
        case .key(let key): key
        case .index(let index): String(index)
        }
    }
}
