/// How a write stores what it carries (`NormalizedCache.write(_:variables:response:options:)`,
/// `writeFragment`, `put`): how long it stays fresh — a lifetime of the caller's, and
/// the response's own caching headers, as the server sent them; the fields the write
/// carries expire at the earliest time any of them gives, and the cache's max-age rules
/// apply on top when data is read — and whether a key fallback is refused.
public struct WriteOptions: Equatable, Sendable {
    /// Seconds the written fields stay fresh (0: stale at once); nil: no lifetime of the caller's.
    public var maxAge: UInt32?
    /// The response's `Cache-Control` header value: `max-age=N` sets a lifetime,
    /// `no-cache` makes the data stale at once, `no-store` writes nothing.
    public var cacheControl: String?
    /// The response's `Age` header value (seconds the response spent in caches).
    public var age: String?
    /// The response's `Date` header value (an HTTP-date).
    public var date: String?
    /// The response's `Expires` header value (an HTTP-date), used without `max-age`.
    public var expires: String?
    /// Whether an object of a type a key rule covers that lacks its key fields fails the
    /// write (`.data`, naming its path, its type and the key fields) instead of being
    /// keyed by its path, which is the default and is counted in
    /// `WriteResult.keyFallbacks`. Records given by key (`put`) have no fallback.
    public var strictKeys: Bool
    /// The response's `ETag` header value (`"v1"`, `W/"v1"`): kept with a document
    /// (`putDocument`, a fetch's reply for `executeDocument`, `refreshDocument`) and read
    /// back with it, so that a stale document can be revalidated; writes of operations and
    /// records ignore it. Checked as RFC 9110's entity-tag when a document is stored.
    public var etag: String?

    /// The largest `maxAge` accepted (about 68 years, HTTP's own bound).
    public static let maximumMaxAge: UInt32 = 2_147_483_647

    /// Options of every part; the defaults give no lifetime and allow key fallbacks.
    public init(maxAge: UInt32? = nil, cacheControl: String? = nil, age: String? = nil, date: String? = nil, expires: String? = nil,
                strictKeys: Bool = false, etag: String? = nil) {
        self.maxAge = maxAge
        self.cacheControl = cacheControl
        self.age = age
        self.date = date
        self.expires = expires
        self.strictKeys = strictKeys
        self.etag = etag
    }

    /// When the fields of a write made at `now` expire: nil for never, or nothing at
    /// all when the response says `no-store` (`.noStore`). Malformed headers and a
    /// `maxAge` above `maximumMaxAge` are `.invalidArgument` errors.
    func expiry(now: UInt64) throws(NormCacheError) -> WriteExpiry {
        if let maxAge, maxAge > Self.maximumMaxAge {
            throw NormCacheError(.invalidArgument, "max_age \(maxAge) is beyond the largest lifetime, \(Self.maximumMaxAge) seconds")
        }
        let server = try Self.withBytes(cacheControl) { cacheControl throws(NormCacheError) in
            try Self.withBytes(age) { age throws(NormCacheError) in
                try Self.withBytes(date) { date throws(NormCacheError) in
                    try Self.withBytes(expires) { expires throws(NormCacheError) in
                        try ServerFreshness.evaluate(cacheControl: cacheControl, age: age, date: date, expires: expires,
                                                     now: Int64(clamping: now))
                    }
                }
            }
        }
        var expiry = maxAge.map { now &+ UInt64($0) }
        switch server {
        case .noStore: return .noStore
        case .unspecified: break
        case .expires(let at): expiry = min(expiry ?? .max, UInt64(max(0, at)))
        }
        return .at(expiry)
    }

    /// Runs `body` with the UTF-8 bytes of `text`, or nil.
    private static func withBytes<R>(_ text: String?, _ body: (UnsafeRawBufferPointer?) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        guard let text else { return try body(nil) }
        return try text.withUTF8Bytes { (bytes) throws(NormCacheError) in try body(bytes) }
    }
}

/// When the fields of a write expire.
enum WriteExpiry: Equatable {
    /// At this time (nil: never).
    case at(UInt64?)
    /// The response may not be stored.
    case noStore
}

/// What a write with `WriteOptions` did.
public struct WriteResult: Equatable, Sendable {
    /// False when the response said `Cache-Control: no-store`: nothing was written.
    public var isStored: Bool
    /// The changed fields as `recordKey.fieldKey` strings, in input order (none when
    /// not reporting changes, or not stored).
    public var changed: ChangedFields
    /// How many objects of a type a key rule covers were keyed by their path for want
    /// of their key fields (Apollo iOS's fallback); 0 when not stored, and for `put`.
    public var keyFallbacks: Int

    /// A result of every part.
    public init(isStored: Bool, changed: ChangedFields, keyFallbacks: Int = 0) {
        self.isStored = isStored
        self.changed = changed
        self.keyFallbacks = keyFallbacks
    }
}
