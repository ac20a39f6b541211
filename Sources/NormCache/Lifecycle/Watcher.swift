import Glibc

/// A watch of an operation (or of a fragment at a record key): after each commit that
/// changes something its last read used, it reads again and hands the result to its
/// callback when it differs from the last one handed over. Made by
/// `NormalizedCache.watch`; ends with `cancel`, or when its cache closes.
public final class Watcher: @unchecked Sendable {
    /// What a watcher's callback gets: a read's result, or why the read failed.
    public typealias Callback = @Sendable (Result<ReadResult, NormCacheError>) -> Void

    /// The handle it reads through; nil once that handle is gone.
    weak var cache: NormalizedCache?
    let operation: PreparedOperation
    /// The record the fragment is read at; nil for an operation.
    let fragmentKey: String?
    let variables: [UInt8]
    let callback: Callback
    let hub: ChangeHub
    /// The process that made it: a child of fork() leaves the parent's hub alone (its
    /// lock may be held for ever there).
    private let owner = getpid()

    // Used by the thread that delivers (`ChangeHub`), one at a time:
    /// The hashes of what its last read used (`ReadDependencies`).
    var dependencies: [UInt64] = []
    /// The commit its last read saw; 0 before its first read.
    var snapshot: UInt64 = 0
    /// The last result handed to the callback.
    var last: Result<ReadResult, NormCacheError>?
    /// How many times it has read.
    private(set) var reads = 0

    // Under the hub's lock:
    var isCancelledUnderLock = false

    init(cache: NormalizedCache, operation: PreparedOperation, fragmentKey: String?, variables: [UInt8], hub: ChangeHub,
         callback: @escaping Callback) {
        self.cache = cache
        self.operation = operation
        self.fragmentKey = fragmentKey
        self.variables = variables
        self.hub = hub
        self.callback = callback
    }

    /// Whether the watch has ended.
    public var isCancelled: Bool { hub.isCancelled(self) }

    /// Ends the watch: its callback is not called again once this returns, unless this
    /// is called from inside that callback (which then returns as usual). Safe from any
    /// thread, from inside any callback, and more than once. In a child of fork() it does
    /// nothing: the watcher belongs to the parent.
    public func cancel() {
        guard getpid() == owner else { return }
        hub.cancel(self)
    }

    /// Reads again; hands the result to the callback when it differs from the last one
    /// (times aside: `oldestWrittenAt` and `earliestExpiry` alone do not count). Returns
    /// the new dependencies and snapshot, or nil when the watch must end (its handle is
    /// gone or closed).
    func refresh() -> (dependencies: [UInt64], snapshot: UInt64)? {
        guard let cache else { return nil }
        reads += 1
        let outcome: Result<ReadResult, NormCacheError>
        var read: (dependencies: [UInt64], snapshot: UInt64)?
        do throws(NormCacheError) {
            let (result, dependencies, snapshot) = try cache.watchRead(self)
            outcome = .success(result)
            read = (dependencies, snapshot)
        } catch {
            guard !cache.isClosed else { return nil }
            outcome = .failure(error)
        }
        if let last, Self.same(last, outcome) { return read ?? (dependencies, snapshot) }
        last = outcome
        guard !hub.isCancelled(self) else { return nil }
        callback(outcome)
        return read ?? (dependencies, snapshot)
    }

    /// Whether two outcomes are the same to a watcher: the same error, or the same
    /// status, data, missing and stale fields.
    private static func same(_ left: Result<ReadResult, NormCacheError>, _ right: Result<ReadResult, NormCacheError>) -> Bool {
        switch (left, right) {
        case (.success(let a), .success(let b)):
            return a.status == b.status && a.data == b.data && a.missing == b.missing && a.stale == b.stale
        case (.failure(let a), .failure(let b)):
            return a.code == b.code && a.message == b.message
        default:
            return false
        }
    }
}
