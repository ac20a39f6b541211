/// The fields of one read found fresh by their plain written-at times (the five-byte
/// times this library writes), settled with one comparison each: the newest time that
/// is no longer fresh under a max age is kept as a bound in the layout of stored times
/// (`FieldMetadata.plainTimeBits`), so no time is decoded. The bound of the last max age
/// asked for is kept, since the fields of a read mostly share one.
///
/// Only a fresh answer is final: anything else (an old time, an expiry, metadata of
/// another shape) is left to the full check (`FreshnessCheck`). It keeps the oldest time
/// found fresh under each max age, so the oldest written-at time and the earliest expiry
/// of those fields, which a read may report, are decoded once a max age, not once a field.
struct FreshTimes {
    /// The read's time, seconds since 1970.
    private let now: UInt64
    /// The max age whose bound is kept.
    private var maxAge = MaxAgeRules.forever
    /// The bits of the newest written-at time that is not fresh under `maxAge`; a plain
    /// time above it is fresh.
    private var bound: UInt64 = 0
    /// The bits of the oldest time found fresh under `maxAge`; `UInt64.max`: none.
    private var oldestUnderMaxAge = UInt64.max
    /// The bits of the oldest time found fresh under the max ages before; `UInt64.max`: none.
    private var oldestBefore = UInt64.max
    /// The earliest expiry of the times found fresh under the max ages before;
    /// `UInt64.max`: none.
    private var earliestExpiryBefore = UInt64.max

    /// The fields of a read at `now`.
    init(now: UInt64) {
        self.now = now
    }

    /// Whether the field of `metadata` is fresh under `maxAge` for certain: its
    /// metadata is a plain written-at time `t` with `t + maxAge > now`. False means
    /// not settled here.
    @inline(__always)
    mutating func isFresh(_ metadata: UnsafeRawBufferPointer, maxAge: UInt32) -> Bool {
        if maxAge != self.maxAge { setMaxAge(maxAge) }
        guard let bits = FieldMetadata.plainTimeBits(metadata), bits > bound else { return false }
        oldestUnderMaxAge = Swift.min(oldestUnderMaxAge, bits)
        return true
    }

    /// The oldest written-at time of the fields found fresh; `UInt64.max`: none.
    var oldestWrittenAt: UInt64 {
        let bits = Swift.min(oldestBefore, oldestUnderMaxAge)
        return bits == .max ? .max : FieldMetadata.plainTime(bits: bits)
    }

    /// The earliest expiry of the fields found fresh; `UInt64.max`: none.
    var earliestExpiry: UInt64 {
        Swift.min(earliestExpiryBefore, Self.expiry(oldest: oldestUnderMaxAge, maxAge: maxAge))
    }

    /// The expiry of a time of bits `oldest` under `maxAge`; `UInt64.max` for none (no
    /// time, or never).
    private static func expiry(oldest: UInt64, maxAge: UInt32) -> UInt64 {
        guard oldest != .max, maxAge != MaxAgeRules.forever else { return .max }
        return FieldMetadata.plainTime(bits: oldest) + UInt64(maxAge)  // below 2^35 + 2^32
    }

    /// Sets aside the times found under the max age so far, and keeps the bound of
    /// `maxAge`: fresh is written after `now - maxAge`.
    private mutating func setMaxAge(_ maxAge: UInt32) {
        oldestBefore = Swift.min(oldestBefore, oldestUnderMaxAge)
        earliestExpiryBefore = Swift.min(earliestExpiryBefore, Self.expiry(oldest: oldestUnderMaxAge, maxAge: self.maxAge))
        oldestUnderMaxAge = .max
        self.maxAge = maxAge
        if maxAge == MaxAgeRules.forever || now < UInt64(maxAge) {
            bound = 0  // every plain time: their bits are at least 0x8080_8080
        } else if now - UInt64(maxAge) < FieldMetadata.plainTimeLimit {
            bound = FieldMetadata.plainTimeBits(of: now - UInt64(maxAge))
        } else {
            bound = .max  // no plain time is that late: the full check decides
        }
    }
}
