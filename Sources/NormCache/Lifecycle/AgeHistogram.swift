/// Bytes of records by age (written-at seconds) in at most `maximumBuckets` buckets:
/// when more ages come than buckets, each bucket is widened to twice as many seconds
/// and neighbours merge, so an eviction's memory stays bounded whatever the store
/// holds. An eviction then removes whole buckets, oldest first.
struct AgeHistogram {
    /// The most buckets kept.
    static let maximumBuckets = 4096

    /// The bytes of each bucket, by the age shifted right by `shift`.
    private var buckets: [UInt64: Int] = [:]
    /// The bucket width is 2^shift seconds.
    private var shift: UInt64 = 0

    /// Counts `bytes` of a record of age `age`.
    mutating func add(age: UInt64, bytes: Int) {
        buckets[age >> shift, default: 0] += bytes
        while buckets.count > Self.maximumBuckets {
            shift += 1
            var merged: [UInt64: Int] = [:]
            for (bucket, bytes) in buckets { merged[bucket >> 1, default: 0] += bytes }
            buckets = merged
        }
    }

    /// The ages to evict: the fewest oldest buckets whose bytes reach `bytes` (all of
    /// them when they do not), leaving out the bucket of `newest` and every later one
    /// when given. Nil when nothing may be evicted.
    func cutoff(covering bytes: Int, sparingFrom newest: UInt64?) -> Cutoff? {
        var total = 0
        var last: UInt64?
        for bucket in buckets.keys.sorted() {
            if let newest, bucket >= newest >> shift { break }
            last = bucket
            total += buckets[bucket] ?? 0
            if total >= bytes { break }
        }
        return last.map { Cutoff(bucket: $0, shift: shift) }
    }

    /// The ages at or below a bucket.
    struct Cutoff: Equatable {
        let bucket: UInt64
        let shift: UInt64

        /// Whether a record of age `age` is evicted.
        func includes(_ age: UInt64) -> Bool {
            age >> shift <= bucket
        }
    }
}
