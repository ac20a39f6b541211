import CNormCacheABI
import Glibc

/// A clock the harness sets on a cache (`normcache_set_clock`) so that the seconds its
/// writes are stamped with do not depend on where a run falls on the wall clock: every
/// field carries the second it was written in, so a rewrite of identical data in a later
/// second than the write before stamps and commits every field again, and one in the
/// same second changes nothing. A run's writes then time the same work in every run.
final class HarnessClock {
    /// The seconds since 1970 the clock gives, read by the library through `context`.
    private let seconds = UnsafeMutablePointer<Int64>.allocate(capacity: 1)

    /// A clock stopped at the system's time now.
    init() { seconds.initialize(to: Int64(time(nil))) }

    deinit { seconds.deallocate() }

    /// Moves the clock on by `count` seconds.
    func advance(by count: Int64) { seconds.pointee += count }

    /// The `context` of `read`.
    var context: UnsafeMutableRawPointer { UnsafeMutableRawPointer(seconds) }

    /// The clock function for `normcache_set_clock`: the seconds `context` points to.
    static let read: normcache_clock = { context in context!.load(as: Int64.self) }
}
