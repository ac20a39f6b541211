import Glibc

/// Where a long loop of an interruptible call (parsing, normalizing, reading, putting)
/// asks whether its handle was interrupted: every `interval` passes, one relaxed load of
/// the flag of the call running on this thread (`InterruptFlag.enter`), so the check
/// costs nothing a profile sees. Outside a call of a handle (`normalize` without a
/// cache, the storage layer's own tests) there is no flag and it never throws.
struct InterruptCheck {
    /// The pthread key of the flag word of the handle whose call runs on the thread.
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The passes between two looks at the flag.
    static var interval: UInt32 { 256 }

    /// The first pass looks, so that a call interrupted before its loop begins stops
    /// at once, however short it is.
    private var countdown: UInt32 = 1

    init() {}

    /// Counts a pass of the loop; every `interval` passes, throws `.interrupted` when
    /// the handle's flag is set.
    @inline(__always)
    mutating func pass() throws(NormCacheError) {
        countdown &-= 1
        guard countdown == 0 else { return }
        countdown = Self.interval
        try Self.now()
    }

    /// Throws `.interrupted` when the flag of the call running on this thread is set.
    static func now() throws(NormCacheError) {
        guard let word = pthread_getspecific(key), InterruptFlag.isSet(word) else { return }
        throw NormCacheError(.interrupted, "interrupted: interrupt() was called on the cache handle while this call ran; nothing was changed")
    }
}
