import Glibc
@testable import NormCache

/// A closure to run on a pthread.
final class ThreadBody: @unchecked Sendable {
    /// The closure.
    let run: @Sendable () -> Void
    /// Boxes `run`.
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Runs each body on a pthread of its own, all at once, and waits for them all.
func runOnThreads(_ bodies: [@Sendable () -> Void]) {
    var threads: [pthread_t] = []
    for body in bodies {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        pthread_create(&thread, nil, { raw in
            let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, box)
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}

/// Problems threads report, collected under a lock.
final class Problems: @unchecked Sendable {
    private let lock = Mutex()
    private var problems: [String] = []

    /// Records a problem; any thread may call it.
    func add(_ problem: String) { lock.withLock { problems.append(problem) } }
    /// The problems recorded so far, in the order they came.
    var list: [String] { lock.withLock { problems } }
}
