import Glibc
import Synchronization

/// How many fork()s separate this process from the one that loaded the library: a
/// handler registered with pthread_atfork counts up in every child, so a handle can
/// tell, without a system call, whether it was registered in this process.
enum ForkGeneration {
    private static let counter = Atomic<UInt64>(0)
    private static let registration = Mutex(false)

    /// The generation of this process.
    static var current: UInt64 { counter.load(ordering: .acquiring) }

    /// Registers the fork handler, once per process image.
    static func start() {
        registration.withLock { registered in
            guard !registered else { return }
            registered = true
            pthread_atfork(nil, nil) { ForkGeneration.counter.add(1, ordering: .releasing) }
        }
    }
}
