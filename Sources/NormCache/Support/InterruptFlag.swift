import Glibc
import Synchronization

/// The interrupt flag of one cache handle (`NormalizedCache.interrupt`), as SQLite's
/// `sqlite3_interrupt` keeps it: setting it stops the calls running on the handle at
/// their next check (`InterruptCheck`); it is cleared when no call runs any more, so a
/// call that starts later is not interrupted.
///
/// The flag lives in one 64-bit word that is never freed and never moves: bit 0 is the
/// flag, bits 1...31 count the calls running, bits 32...63 are the word's generation.
/// Words are kept in a pool and reused by later handles with the next generation, so a
/// stale reference (a closed handle's) finds a generation that is not its own and
/// changes nothing. `interrupt()` is a compare-and-swap loop on the word and nothing
/// else: no lock, no allocation, safe in a signal handler.
package struct InterruptFlag: @unchecked Sendable {
    private let word: UnsafeMutablePointer<Atomic<UInt64>>
    /// The generation of the word this flag was taken with.
    private let generation: UInt64

    private static var flagBit: UInt64 { 1 }
    private static var oneCall: UInt64 { 2 }
    private static var callsMask: UInt64 { 0xFFFF_FFFE }
    private static var generationShift: UInt64 { 32 }

    private init(word: UnsafeMutablePointer<Atomic<UInt64>>, generation: UInt64) {
        self.word = word
        self.generation = generation
    }

    /// The flag of a `reference`, as a table that a signal handler reads keeps it
    /// (the C interface's `InterruptDirectory`).
    package init?(reference: (word: UInt, generation: UInt64)) {
        guard let word = UnsafeMutablePointer<Atomic<UInt64>>(bitPattern: reference.word) else { return nil }
        self.init(word: word, generation: reference.generation)
    }

    /// The flag as plain numbers: the address of its word and the generation.
    package var reference: (word: UInt, generation: UInt64) { (UInt(bitPattern: word), generation) }

    /// A flag from the pool, not set, with no call running.
    static func take() -> InterruptFlag {
        let word = Pool.shared.take()
        return InterruptFlag(word: word, generation: word.pointee.load(ordering: .relaxed) >> generationShift)
    }

    /// Gives the word back to the pool with the next generation; the flag must not be
    /// used afterwards.
    func recycle() {
        word.pointee.store(((generation &+ 1) & 0xFFFF_FFFF) << Self.generationShift, ordering: .releasing)
        Pool.shared.give(word)
    }

    /// Sets the flag if calls are running (else does nothing, as no call is there to
    /// stop); returns false when the word belongs to another handle now. Only atomic
    /// operations: async-signal-safe.
    @discardableResult
    package func interrupt() -> Bool {
        var state = word.pointee.load(ordering: .relaxed)
        while true {
            guard state >> Self.generationShift == generation else { return false }
            guard state & Self.callsMask != 0, state & Self.flagBit == 0 else { return true }
            let (exchanged, current) = word.pointee.compareExchange(expected: state, desired: state | Self.flagBit, ordering: .relaxed)
            if exchanged { return true }
            state = current
        }
    }

    /// Counts a call as running and makes this flag the one the calling thread's checks
    /// see; returns the flag they saw before (a call of another handle that this one
    /// runs inside, from a callback), for `leave`.
    func enter() -> UnsafeMutableRawPointer? {
        word.pointee.add(Self.oneCall, ordering: .relaxed)
        let previous = pthread_getspecific(InterruptCheck.key)
        pthread_setspecific(InterruptCheck.key, UnsafeMutableRawPointer(word))
        return previous
    }

    /// Counts the call as ended, clearing the flag when it was the last one running,
    /// and gives the thread's checks back the flag they saw before `enter`.
    func leave(restoring previous: UnsafeMutableRawPointer?) {
        pthread_setspecific(InterruptCheck.key, previous)
        var state = word.pointee.load(ordering: .relaxed)
        while true {
            var next = state &- Self.oneCall
            if next & Self.callsMask == 0 { next &= ~Self.flagBit }
            let (exchanged, current) = word.pointee.compareExchange(expected: state, desired: next, ordering: .relaxed)
            if exchanged { return }
            state = current
        }
    }

    /// Whether `word` (what `enter` made the thread's) has its flag set.
    static func isSet(_ word: UnsafeMutableRawPointer) -> Bool {
        word.assumingMemoryBound(to: Atomic<UInt64>.self).pointee.load(ordering: .relaxed) & flagBit != 0
    }

    /// The words of flags not in use. Words are never freed: a signal handler may still
    /// hold a reference to a recycled one, and finds its generation changed.
    private final class Pool: @unchecked Sendable {
        static let shared = Pool()

        private let lock = ForkSafety.locks.interruptFlags
        /// Changed only under `lock`.
        private var free: [UnsafeMutablePointer<Atomic<UInt64>>] = []

        func take() -> UnsafeMutablePointer<Atomic<UInt64>> {
            if let word = lock.withLock({ free.popLast() }) { return word }
            let word = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: 1)
            word.initialize(to: Atomic(0))
            return word
        }

        func give(_ word: UnsafeMutablePointer<Atomic<UInt64>>) {
            lock.withLock { free.append(word) }
        }
    }
}
