import Glibc

/// The message of the last failure, one per thread, as `normcache_errmsg` returns it.
/// Each thread's message is a malloc'd C string under a pthread key, freed when the
/// thread ends or its next failure replaces it.
enum ErrorMessage {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    private static let empty: StaticString = ""

    /// Records `message` as the calling thread's last failure. A message that cannot
    /// be allocated leaves the thread with the fixed string of its code instead.
    static func set(_ message: String) {
        let old = pthread_getspecific(key)
        let copy = strdup(message)
        pthread_setspecific(key, copy.map { UnsafeMutableRawPointer($0) })
        free(old)
    }

    /// The calling thread's last failure message, or "".
    static func current() -> UnsafePointer<CChar> {
        guard let message = pthread_getspecific(key) else {
            return UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self)
        }
        return UnsafePointer(message.assumingMemoryBound(to: CChar.self))
    }
}
