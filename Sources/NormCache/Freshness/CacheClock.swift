import Glibc

/// The time of one cache handle, in seconds since 1970: what writes stamp on fields and
/// what reads judge freshness by. The system's wall clock unless a test sets another
/// (`NormalizedCache.setClock`). A set clock is called outside every lock of the cache,
/// so it may take its own.
final class CacheClock: @unchecked Sendable {
    /// A clock: seconds since 1970, or the error that says why it has no answer.
    typealias Source = @Sendable () throws(NormCacheError) -> Int64

    private let lock = Mutex()
    private var source: Source?

    /// The system clock, or `source` when given.
    init(_ source: Source? = nil) {
        self.source = source
    }

    /// Replaces the clock; nil brings back the system clock.
    func set(_ source: Source?) {
        let replaced = lock.withLock { () -> Source? in
            defer { self.source = source }
            return self.source
        }
        // A C clock's context may be released with the closure: not under the lock.
        withExtendedLifetime(replaced) {}
    }

    /// The time now; `.callback` when a set clock answers a time before 1970 (or the
    /// error it throws).
    func now() throws(NormCacheError) -> UInt64 {
        guard let source = lock.withLock({ source }) else { return Self.systemTime() }
        let time = try source()
        guard time >= 0 else {
            throw NormCacheError(.callback, "the cache's clock answered \(time): a clock answers seconds since 1970, not below 0")
        }
        return UInt64(time)
    }

    /// The wall clock in seconds since 1970.
    static func systemTime() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec))
    }
}
