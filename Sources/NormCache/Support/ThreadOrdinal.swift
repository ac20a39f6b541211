import Glibc
import Synchronization

/// A small number for the calling thread, handed out in the order threads first ask for
/// one (0, 1, 2, …) and kept under a pthread key: for spreading threads over places that
/// each then mostly comes back to. Only a hint: two threads may share a parity, and a
/// thread of a forked child keeps its parent's number.
enum ThreadOrdinal {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static let handedOut = Atomic<UInt>(0)

    /// The calling thread's number.
    static var current: UInt {
        let key = key
        if let word = pthread_getspecific(key) { return UInt(bitPattern: Int(bitPattern: word)) - 1 }
        let ordinal = handedOut.add(1, ordering: .relaxed).oldValue
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: ordinal + 1))
        return ordinal
    }
}
