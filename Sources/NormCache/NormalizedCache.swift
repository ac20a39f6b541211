import Glibc

/// An open normcache cache: normalized records in one LMDB file, shared safely by the
/// threads of this process and by other processes that open the same path.
///
/// Keys are UTF-8 bytes and are compared as bytes, never as Swift `String`s. Methods
/// that take bytes also come in `String` flavours for convenience.
public final class NormalizedCache: @unchecked Sendable {
    /// The library version, "MAJOR.MINOR.PATCH".
    public static let version: StaticString = "0.1.0"

    /// The library version as one integer, MAJOR * 1000000 + MINOR * 1000 + PATCH
    /// (`NORMCACHE_VERSION_NUMBER` in C), read from `version`.
    public static var versionNumber: Int32 {
        var number: Int32 = 0
        var part: Int32 = 0
        for byte in UnsafeBufferPointer(start: version.utf8Start, count: version.utf8CodeUnitCount) {
            if byte == UInt8(ascii: ".") {
                number = number * 1000 + part
                part = 0
            } else {
                part = part * 10 + Int32(byte - UInt8(ascii: "0"))
            }
        }
        return number * 1000 + part
    }

    /// The path of the cache file.
    public var path: String { store.path }
    /// The options the cache was opened with.
    public var options: CacheOptions { store.options }

    let store: RecordStore
    /// The schema and key rules that operations prepared from now on use.
    let rules: CacheRules
    /// The time stamped on written fields and judged against by reads.
    let clock: CacheClock
    /// The flag `interrupt` sets, which the calls running on this handle look at.
    package let interruptFlag: InterruptFlag

    /// Opens the cache file at `path` (its directory must exist), creating it unless
    /// `options.readOnly`. Rules saved in the file (see `saveRules`) become the handle's,
    /// unless `options.rules` is `.own`; saved rules that are damaged or do not load
    /// throw `.notACache`.
    public convenience init(path: String, options: CacheOptions = CacheOptions()) throws(NormCacheError) {
        try self.init(path: path, options: options, clock: nil)
    }

    /// Opens a cache whose times come from `clock` (nil: the system clock).
    init(path: String, options: CacheOptions, clock: CacheClock.Source?) throws(NormCacheError) {
        guard options.maxBytes == 0 || options.maxBytes >= CacheOptions.minimumMaxBytes else {
            throw NormCacheError(.invalidArgument, "max_bytes \(options.maxBytes) is below the minimum of \(CacheOptions.minimumMaxBytes) bytes")
        }
        guard options.lowWater > 0, options.lowWater <= 1 else {
            throw NormCacheError(.invalidArgument, "low water \(options.lowWater) is not greater than 0 and at most 1")
        }
        guard options.mapSize >= CacheOptions.minimumMapSize else {
            throw NormCacheError(.invalidArgument, "map size \(options.mapSize) is below the minimum of \(CacheOptions.minimumMapSize) bytes")
        }
        let rules = CacheRules()
        var writeCheck: RecordStore.WriteCheck?
        if options.rules == .strict {
            writeCheck = { (txn) throws(NormCacheError) in try NormalizedCache.checkRules(rules, in: txn) }
        }
        var writeFinish: RecordStore.WriteCheck?
        if options.maxBytes > 0 {
            writeFinish = { (txn) throws(NormCacheError) in try Eviction.enforce(in: txn, options: options) }
        }
        store = try RecordStore(path: path, options: options, writeCheck: writeCheck, writeFinish: writeFinish)
        self.rules = rules
        self.clock = CacheClock(clock)
        interruptFlag = InterruptFlag.take()
        if options.rules != .own { try adoptSavedRules() }
    }

    deinit {
        interruptFlag.recycle()
    }

    /// Interrupts the calls running on this handle, from any thread, as SQLite's
    /// `sqlite3_interrupt`: each stops at its next check (every few hundred tokens of a
    /// document, objects of a response or a read, records of a put, and before a
    /// write commits) and throws `.interrupted`, having changed nothing. The
    /// interruptible calls are `prepare`, `write`, `writeFragment`, `put`, `read`,
    /// `readFragment`, `execute`, `putDocument` and `executeDocument`. A call
    /// that starts while interrupted calls still run is interrupted too; once none runs
    /// the flag is cleared, so an `interrupt()` while no call runs does nothing. Only
    /// atomic operations: no lock, no allocation.
    public func interrupt() {
        interruptFlag.interrupt()
    }

    /// Runs `body`, a call on this handle, as one that `interrupt` stops.
    func interruptible<R>(_ body: () throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        let previous = interruptFlag.enter()
        defer { interruptFlag.leave(restoring: previous) }
        return try body()
    }

    /// Closes the cache once calls in progress on other threads end, and ends the
    /// watchers made through it. Later calls fail with `.invalidArgument`. Returns
    /// false when it was already closed.
    @discardableResult
    public func close() -> Bool {
        // A child made by fork() that closes an inherited handle leaves the parent's
        // watchers alone, and the lock of their hub, which a thread of the parent may
        // have held at the fork (the child waited for it for ever).
        if store.belongsToThisProcess { store.changeHub.cancelWatchers(of: self) }
        return store.close()
    }

    /// Whether the handle is closed.
    var isClosed: Bool { store.closed }

    /// Replaces the clock of this handle — what writes stamp on fields and reads judge
    /// freshness by — with `clock`, seconds since 1970; nil brings back the system
    /// clock. A testing aid: with a clock it sets, a test reads data "31 minutes later"
    /// without waiting. A time below 0 fails the call that asked for it (`.callback`).
    public func setClock(_ clock: (@Sendable () -> Int64)?) {
        guard let clock else {
            self.clock.set(nil)
            return
        }
        self.clock.set { () throws(NormCacheError) -> Int64 in clock() }
    }

    /// `setClock` with a clock that may fail (the C interface's, whose callback can say
    /// why through `normcache_callback_error`): its error fails the call that asked.
    package func setFailableClock(_ clock: (@Sendable () throws(NormCacheError) -> Int64)?) {
        self.clock.set(clock)
    }
}
