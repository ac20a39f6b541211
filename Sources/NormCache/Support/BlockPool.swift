import Glibc

/// The large blocks of memory the last calls let go (a write's tape, batch and arenas,
/// a C caller's read result of more than 32 MiB once freed), kept for the next call: memory fresh from
/// the kernel costs a page fault and a zeroed page every 4 KiB, a fifth of a write of a
/// few megabytes and a quarter of one of a hundred.
///
/// Blocks under `minimumBlock` are left to malloc. The rest are kept in two tiers:
/// - *ready*: at most `maximumReady` bytes in `maximumReadyBlocks` blocks, kept as they are;
/// - *reclaimable*: the blocks the ready tier has no room for (larger ones, and the
///   oldest it pushes out), at most `maximumReclaimable` bytes in
///   `maximumReclaimableBlocks` blocks. Their pages are handed to the kernel with
///   `madvise(MADV_FREE)`: it takes them back when memory runs short, and until then a
///   later call writes over them without a fault. They stay in the process's resident
///   set until taken. A reclaimable block unused for `reclaimableLifetime` is freed at
///   the pool's next use, and `releaseAll()` frees every block at once
///   (`normcache_release_memory`).
///
/// The reclaimable tier keeps blocks only while the process shows that it works in
/// blocks that large again and again, as glibc raises its mmap threshold to the size of
/// an mmapped block freed: once a block is wanted, and none kept fits, of the size (up to
/// twice) of one larger than the ready tier keeps that the pool freed in the last
/// `reclaimableLifetime`, the tier keeps blocks for that long again, and as long again
/// each time a reclaimable block is taken (a size that keeps coming). So one large call
/// (a 50 MB response written once) holds no more memory than it did without the pool,
/// and calls that come again (the same query read every second) fault in no fresh pages.
///
/// A child process after `fork()` neither takes nor keeps blocks (the pool and its lock
/// belong to the parent). In the checked build (`NORMCACHE_INTERNAL_CHECKS`) the pool of
/// the process keeps nothing, so that AddressSanitizer sees every block the core lets
/// go of freed.
final class BlockPool: @unchecked Sendable {
    /// The pool of the process.
    #if NORMCACHE_INTERNAL_CHECKS
    static let shared = BlockPool(keepsBlocks: false)
    #else
    static let shared = BlockPool(keepsBlocks: true)
    #endif

    /// The smallest block kept.
    static let minimumBlock = 256 << 10
    /// The most bytes kept ready.
    static let maximumReady = 32 << 20
    /// The most blocks kept ready.
    static let maximumReadyBlocks = 8
    /// The most bytes kept reclaimable (and so the largest block kept).
    static let maximumReclaimable = 256 << 20
    /// The most blocks kept reclaimable.
    static let maximumReclaimableBlocks = 8
    /// How long a reclaimable block is kept unused, in milliseconds.
    static let reclaimableLifetime: UInt64 = 10_000

    /// A kept block.
    private struct Kept {
        let start: UnsafeMutableRawPointer
        let capacity: Int
        /// Whether its pages are marked `MADV_FREE`.
        var reclaimable: Bool
        /// When it was let go (`clock`), or made reclaimable.
        var since: UInt64
    }

    private let lock = Mutex()
    /// The kept blocks, oldest first.
    private var blocks: [Kept] = []
    /// The last blocks larger than the ready tier keeps that were freed for want of
    /// room, and when (`clock`), at most `remembered`.
    private var recentlyFreed: [(bytes: Int, at: UInt64)] = []
    /// The most freed blocks remembered.
    private static let remembered = 8
    /// Until when (`clock`) the reclaimable tier keeps blocks; 0 while it has not yet.
    private var keepsReclaimableUntil: UInt64 = 0
    /// The fork generation it was made in (`ForkSafety.registeredGeneration`): a child
    /// made by fork() neither takes nor keeps blocks.
    private let owner = ForkSafety.registeredGeneration
    /// Whether blocks are kept at all (else every block is malloc's own).
    private let keepsBlocks: Bool
    /// Monotonic milliseconds.
    private let clock: @Sendable () -> UInt64

    /// A pool that keeps large blocks, or, without `keepsBlocks`, frees every one;
    /// `clock` gives monotonic milliseconds (tests pass their own).
    init(keepsBlocks: Bool = true, clock: @escaping @Sendable () -> UInt64 = BlockPool.monotonicMilliseconds) {
        self.keepsBlocks = keepsBlocks
        self.clock = clock
    }

    deinit {
        for block in blocks { free(block.start) }
    }

    /// The blocks and bytes kept now in each tier.
    var kept: (readyBlocks: Int, ready: Int, reclaimableBlocks: Int, reclaimable: Int) {
        lock.withLock {
            blocks.reduce(into: (readyBlocks: 0, ready: 0, reclaimableBlocks: 0, reclaimable: 0)) { sum, block in
                if block.reclaimable {
                    sum.reclaimableBlocks += 1
                    sum.reclaimable += block.capacity
                } else {
                    sum.readyBlocks += 1
                    sum.ready += block.capacity
                }
            }
        }
    }

    /// A block for `wanted` bytes that holds the first `used` bytes of `block` (of
    /// `capacity` bytes, or nil): a kept block when one fits, else `block` reallocated.
    /// Returns the block and its capacity, or nil when memory cannot be had (`block` is
    /// then as it was).
    func reallocate(_ block: UnsafeMutableRawPointer?, used: Int, capacity: Int, to wanted: Int) -> (UnsafeMutableRawPointer, Int)? {
        if wanted >= Self.minimumBlock, let (kept, keptCapacity) = take(atLeast: wanted) {
            if used > 0, let block { kept.copyMemory(from: block, byteCount: used) }
            release(block, capacity: capacity)
            return (kept, keptCapacity)
        }
        guard let grown = realloc(block, wanted) else { return nil }
        return (grown, wanted)
    }

    /// Lets go of `block`, a malloc'd block of at least `capacity` bytes: kept for a later
    /// call when it is large, else freed.
    func release(_ block: UnsafeMutableRawPointer?, capacity: Int) {
        guard let block else { return }
        guard keepsBlocks, capacity >= Self.minimumBlock, ForkSafety.generation == owner else { return free(block) }
        let freed = lock.withLock {
            let now = clock()
            if capacity <= Self.maximumReady {
                blocks.append(Kept(start: block, capacity: capacity, reclaimable: false, since: now))
            } else if capacity <= Self.maximumReclaimable, now < keepsReclaimableUntil, Self.markReclaimable(block, capacity) {
                blocks.append(Kept(start: block, capacity: capacity, reclaimable: true, since: now))
            } else {
                noteFreedForWantOfRoom(capacity, now: now)
                return settle(now: now) + [block]
            }
            return settle(now: now)
        }
        for block in freed { free(block) }
    }

    /// Frees every kept block; returns their bytes.
    func releaseAll() -> Int {
        let taken = lock.withLock {
            defer { blocks.removeAll() }
            return blocks
        }
        for block in taken { free(block.start) }
        return taken.reduce(0) { $0 + $1.capacity }
    }

    /// The smallest kept block of at least `bytes`, taken out of the pool. When it is a
    /// reclaimable one, or when none is and the pool freed one of that size for want of
    /// room lately, the reclaimable tier keeps blocks for `reclaimableLifetime` again.
    private func take(atLeast bytes: Int) -> (UnsafeMutableRawPointer, Int)? {
        guard keepsBlocks, ForkSafety.generation == owner else { return nil }
        let (taken, freed) = lock.withLock {
            let now = clock()
            let freed = settle(now: now)
            var best: Int?
            for (index, block) in blocks.enumerated() where block.capacity >= bytes {
                if best.map({ block.capacity < blocks[$0].capacity }) ?? true { best = index }
            }
            if let best {
                // A reclaimable block wanted again: the process still works in blocks that large.
                if blocks[best].reclaimable { keepsReclaimableUntil = now &+ Self.reclaimableLifetime }
            } else if recentlyFreed.contains(where: { earlier in
                earlier.bytes >= bytes && earlier.bytes / 2 <= bytes && now &- earlier.at < Self.reclaimableLifetime
            }) {
                keepsReclaimableUntil = now &+ Self.reclaimableLifetime
            }
            return (best.map { blocks.remove(at: $0) }, freed)
        }
        for block in freed { free(block) }
        return taken.map { ($0.start, $0.capacity) }
    }

    /// Remembers a block of `bytes` freed for want of room at `now`, when it is larger
    /// than the ready tier keeps and not larger than the reclaimable one does (under the lock).
    private func noteFreedForWantOfRoom(_ bytes: Int, now: UInt64) {
        guard bytes > Self.maximumReady, bytes <= Self.maximumReclaimable else { return }
        if recentlyFreed.count == Self.remembered { recentlyFreed.removeFirst() }
        recentlyFreed.append((bytes, now))
    }

    /// Brings the tiers within their bounds (under the lock): the oldest ready blocks past
    /// the ready bounds become reclaimable (or leave, while that tier keeps nothing), and
    /// the oldest reclaimable blocks past theirs, or unused for `reclaimableLifetime`,
    /// leave. Returns the blocks to free.
    private func settle(now: UInt64) -> [UnsafeMutableRawPointer] {
        var ready = (count: 0, bytes: 0)
        var reclaimable = (count: 0, bytes: 0)
        for block in blocks {
            if block.reclaimable {
                reclaimable = (reclaimable.count + 1, reclaimable.bytes + block.capacity)
            } else {
                ready = (ready.count + 1, ready.bytes + block.capacity)
            }
        }
        var leaving: [Int] = []
        for index in blocks.indices where !blocks[index].reclaimable {
            guard ready.bytes > Self.maximumReady || ready.count > Self.maximumReadyBlocks else { break }
            ready = (ready.count - 1, ready.bytes - blocks[index].capacity)
            if now < keepsReclaimableUntil, Self.markReclaimable(blocks[index].start, blocks[index].capacity) {
                blocks[index].reclaimable = true
                blocks[index].since = now
                reclaimable = (reclaimable.count + 1, reclaimable.bytes + blocks[index].capacity)
            } else {
                noteFreedForWantOfRoom(blocks[index].capacity, now: now)
                leaving.append(index)
            }
        }
        for index in blocks.indices where blocks[index].reclaimable {
            let block = blocks[index]
            if reclaimable.bytes > Self.maximumReclaimable || reclaimable.count > Self.maximumReclaimableBlocks {
                noteFreedForWantOfRoom(block.capacity, now: now)
            } else if now &- block.since < Self.reclaimableLifetime {
                continue
            }
            reclaimable = (reclaimable.count - 1, reclaimable.bytes - block.capacity)
            leaving.append(index)
        }
        guard !leaving.isEmpty else { return [] }
        let freed = leaving.map { blocks[$0].start }
        blocks = blocks.indices.filter { !leaving.contains($0) }.map { blocks[$0] }
        return freed
    }

    /// Marks the whole pages inside `block` (of `capacity` bytes) `MADV_FREE`; false
    /// when the kernel refuses (before Linux 4.5), and the block is not to be kept.
    private static func markReclaimable(_ block: UnsafeMutableRawPointer, _ capacity: Int) -> Bool {
        let first = (Int(bitPattern: block) + pageSize - 1) & ~(pageSize - 1)
        let end = (Int(bitPattern: block) + capacity) & ~(pageSize - 1)
        guard end > first else { return true }
        return madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, MADV_FREE) == 0
    }

    /// The size of a page.
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Milliseconds of `CLOCK_MONOTONIC_COARSE` (a few nanoseconds to read).
    @Sendable static func monotonicMilliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        return UInt64(now.tv_sec) &* 1000 &+ UInt64(now.tv_nsec / 1_000_000)
    }
}

extension NormCacheError {
    /// The error of an allocation of `bytes` that failed while doing `purpose` (a
    /// phrase: "scanning JSON"): the call fails with `.outOfMemory`, and the process goes on.
    static func outOfMemory(allocating bytes: Int, while purpose: String) -> NormCacheError {
        NormCacheError(.outOfMemory, "out of memory: could not allocate \(bytes) bytes while \(purpose)")
    }
}
