/// How one read judges the fields it uses (the rules in `normcache.h`, "Freshness"):
/// a field expires at the earlier of its written-at time plus its max age (the rules,
/// resolved along the read's path) and the expiry its write or an invalidation stored.
/// From its expiry on it is stale: a miss, unless the read allows `maxStale` seconds
/// past the expiry, when it is returned and reported stale.
struct FreshnessCheck {
    /// The read's time, seconds since 1970.
    let now: UInt64
    /// How long past its expiry a stale field may still be returned; nil: not at all.
    let maxStale: UInt64?
    /// Whether any rule applies (else only stored expiries make fields stale).
    let hasRules: Bool
    /// Whether a rule names a field of a type that is not a root type, so that the
    /// concrete typename of an object of an abstract (or unknown) declared type matters.
    let needsTypenames: Bool
    /// Whether the read reports the oldest written-at time and the earliest expiry, so
    /// that every field's time is decoded.
    let reports: Bool
    /// The max age of the root object, which its fields inherit.
    let rootMaxAge: UInt32
    /// Whether every field counts as fresh (times are still reported).
    let ignoresExpiry: Bool

    /// A check at `now` under `rules` (of which it keeps what reads need); with `ignoresExpiry`, one that finds every field
    /// fresh (data just written, or a watcher's re-read).
    init(now: UInt64, maxStale: UInt64?, rules: MaxAgeRules, reports: Bool, ignoresExpiry: Bool = false,
         rootTypes: [String] = ["Query", "Mutation", "Subscription"]) {
        self.now = now
        self.maxStale = maxStale
        needsTypenames = rules.hasFieldRules(besides: rootTypes)
        hasRules = !rules.isEmpty
        self.reports = reports
        rootMaxAge = rules.rootMaxAge
        self.ignoresExpiry = ignoresExpiry
    }

    /// Whether a field of these metadata bytes needs judging: any rule applies, the read
    /// reports times, or the field stores an expiry.
    @inline(__always)
    func needsJudging(_ metadata: UnsafeRawBufferPointer) -> Bool {
        hasRules || reports || metadata.first.map { $0 & FieldMetadata.hasExpiry != 0 } ?? false
    }

    /// The resolved max age of a field of rule `rule` whose parent field's is `parent`.
    @inline(__always)
    func maxAge(_ rule: FieldMaxAgeRule, parent: UInt32, isRootField: Bool) -> UInt32 {
        MaxAgeRules.resolve(rule, parent: parent, isRootField: isRootField, rootMaxAge: rootMaxAge)
    }

    /// The time a field of `metadata` expires with max age `maxAge` (`forever`: none);
    /// `UInt64.max` when never.
    @inline(__always)
    static func expiry(of metadata: FieldMetadata, maxAge: UInt32) -> UInt64 {
        var expiry = metadata.expiresAt ?? .max
        if maxAge != MaxAgeRules.forever {
            let (sum, overflow) = metadata.writtenAt.addingReportingOverflow(UInt64(maxAge))
            if !overflow { expiry = min(expiry, sum) }
        }
        return expiry
    }

    /// What a field expiring at `expiry` is to this read.
    enum Verdict {
        /// Fresh, or the read did not look.
        case fresh
        /// Stale within `maxStale`: returned, and reported.
        case staleReturned
        /// Stale beyond `maxStale`: a miss.
        case staleMissed
    }

    /// The verdict on a field expiring at `expiry`.
    @inline(__always)
    func verdict(expiry: UInt64) -> Verdict {
        guard now >= expiry, !ignoresExpiry else { return .fresh }
        guard let maxStale, now - expiry <= maxStale else { return .staleMissed }
        return .staleReturned
    }
}
