import Glibc

/// The reason a callback gives for failing (`normcache_callback_error`), one slot per
/// thread and per running callback: `run` opens a frame around each call into the
/// host's code, so a callback that calls the library, which runs another callback,
/// keeps its own reason apart from the inner one's.
enum CallbackFailure {
    /// The frame of one running callback; it lives on the stack of `run`.
    private struct Frame {
        /// The reason given so far, if any.
        var reason: String?
    }

    /// The calling thread's innermost running frame.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `callback` inside a new frame; returns what it returned (a status, a time)
    /// and the reason it gave.
    static func run<Value>(_ callback: () -> Value) -> (value: Value, reason: String?) {
        var frame = Frame()
        let outer = pthread_getspecific(key)
        let value = withUnsafeMutablePointer(to: &frame) { pointer in
            pthread_setspecific(key, pointer)
            defer { pthread_setspecific(key, outer) }
            return callback()
        }
        return (value, frame.reason)
    }

    /// Gives the running callback's reason (empty: none); false outside callbacks.
    static func give(_ reason: String) -> Bool {
        guard let frame = pthread_getspecific(key) else { return false }
        frame.assumingMemoryBound(to: Frame.self).pointee.reason = reason.isEmpty ? nil : reason
        return true
    }
}
