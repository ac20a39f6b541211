import Glibc

/// The reason a callback gives for failing (`normcache_callback_error`), one slot per
/// thread and per running callback: `run` opens a frame around each call into the
/// host's code, so a callback that calls the library, which runs another callback,
/// keeps its own reason apart from the inner one's.
enum CallbackFailure {
    /// The frame of the callback running on a thread; it lives on the stack of `run`.
    final class Frame {
        /// The reason given so far, if any.
        var reason: String?
    }

    /// The calling thread's innermost running frame (unretained: `run` keeps it alive).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `callback` inside a new frame; returns its status and the reason it gave.
    static func run(_ callback: () -> Int32) -> (status: Int32, reason: String?) {
        let frame = Frame()
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(frame).toOpaque())
        defer { pthread_setspecific(key, outer) }
        let status = withExtendedLifetime(frame) { callback() }
        return (status, frame.reason)
    }

    /// The frame of the callback running on the calling thread, or nil outside callbacks.
    static var current: Frame? {
        pthread_getspecific(key).map { Unmanaged<Frame>.fromOpaque($0).takeUnretainedValue() }
    }
}
