import Glibc

/// The large blocks of memory the last calls let go (a write's tape, batch and arenas,
/// a C caller's read result of more than 32 MiB once freed), kept for the next call: memory fresh from
/// the kernel costs a page fault and a zeroed page every 4 KiB, a fifth of a write of a
/// few megabytes and a quarter of one of a hundred.
///
/// Blocks under `minimumBlock` are left to malloc. The rest are kept in two tiers, whose
/// bounds count the memory a block holds (`Kept.resident`): a block larger than the
/// ready tier keeps is counted by its pages in memory (`mincore`), a smaller one by its
/// capacity. A tape reserved for the most tokens its document could hold takes the
/// address space of that, and only the memory of the tokens it held.
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
/// an mmapped block freed: once a block is wanted, and none kept fits, that one the pool
/// freed in the last `reclaimableLifetime` would have served (its capacity) and that is
/// at least half of what that block held, more than the ready tier keeps, the tier keeps
/// blocks for that long again, and as long again each time a reclaimable block is taken
/// (a size that keeps coming). A reclaimable block goes only to a want of at least half
/// what it held; smaller wants get ready blocks or malloc's. So one large call
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
    /// The most bytes kept reclaimable (and so the most a block kept may hold).
    static let maximumReclaimable = 256 << 20
    /// The most blocks kept reclaimable.
    static let maximumReclaimableBlocks = 8
    /// How long a reclaimable block is kept unused, in milliseconds.
    static let reclaimableLifetime: UInt64 = 10_000

    /// A kept block.
    private struct Kept {
        let start: UnsafeMutableRawPointer
        let capacity: Int
        /// The bytes of its pages in memory when it was let go (at most `capacity`), what
        /// the tiers' bounds count.
        let resident: Int
        /// Whether its pages are marked `MADV_FREE`.
        var reclaimable: Bool
        /// When it was let go (`clock`), or made reclaimable.
        var since: UInt64
    }

    private let lock = Mutex()
    /// The kept blocks, oldest first.
    private var blocks: [Kept] = []
    /// The capacities and the bytes held of the last blocks holding more than the ready
    /// tier keeps that were freed for want of room, and when (`clock`), at most
    /// `remembered`.
    private var recentlyFreed: [(capacity: Int, held: Int, at: UInt64)] = []
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

    /// The blocks kept now in each tier, and the bytes they hold.
    var kept: (readyBlocks: Int, ready: Int, reclaimableBlocks: Int, reclaimable: Int) {
        lock.withLock {
            blocks.reduce(into: (readyBlocks: 0, ready: 0, reclaimableBlocks: 0, reclaimable: 0)) { sum, block in
                if block.reclaimable {
                    sum.reclaimableBlocks += 1
                    sum.reclaimable += block.resident
                } else {
                    sum.readyBlocks += 1
                    sum.ready += block.resident
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
        let resident = capacity <= Self.maximumReady ? capacity : Self.residentBytes(block, capacity)
        let freed = lock.withLock {
            let now = clock()
            var kept = Kept(start: block, capacity: capacity, resident: resident, reclaimable: false, since: now)
            if resident <= Self.maximumReady {
                blocks.append(kept)
            } else if resident <= Self.maximumReclaimable, now < keepsReclaimableUntil, Self.markReclaimable(block, capacity) {
                kept.reclaimable = true
                blocks.append(kept)
            } else {
                noteFreedForWantOfRoom(kept, now: now)
                return settle(now: now) + [block]
            }
            return settle(now: now)
        }
        for block in freed { free(block) }
    }

    /// Frees every kept block; returns the bytes they held.
    func releaseAll() -> Int {
        let taken = lock.withLock {
            defer { blocks.removeAll() }
            return blocks
        }
        for block in taken { free(block.start) }
        return taken.reduce(0) { $0 + $1.resident }
    }

    /// The smallest kept block of at least `bytes`, taken out of the pool: a ready one, or
    /// a reclaimable one that held at most twice `bytes` (a size that comes again; a
    /// much smaller want would keep the tier alive for sizes no longer wanted, and pay
    /// to mark all its pages again when it lets go). When it is a reclaimable one, or
    /// when none is and the pool lately freed for want of room one that would have
    /// served it and held at most twice `bytes`, the reclaimable tier keeps blocks for
    /// `reclaimableLifetime` again.
    private func take(atLeast bytes: Int) -> (UnsafeMutableRawPointer, Int)? {
        guard keepsBlocks, ForkSafety.generation == owner else { return nil }
        let (taken, freed) = lock.withLock {
            let now = clock()
            let freed = settle(now: now)
            var best: Int?
            for (index, block) in blocks.enumerated() {
                let fits = block.reclaimable ? Self.servesItsSize(bytes, capacity: block.capacity, held: block.resident)
                                             : block.capacity >= bytes
                if fits, best.map({ block.capacity < blocks[$0].capacity }) ?? true { best = index }
            }
            if let best {
                // A reclaimable block wanted again: the process still works in blocks that large.
                if blocks[best].reclaimable { keepsReclaimableUntil = now &+ Self.reclaimableLifetime }
            } else if recentlyFreed.contains(where: { earlier in
                Self.servesItsSize(bytes, capacity: earlier.capacity, held: earlier.held) && now &- earlier.at < Self.reclaimableLifetime
            }) {
                keepsReclaimableUntil = now &+ Self.reclaimableLifetime
            }
            return (best.map { blocks.remove(at: $0) }, freed)
        }
        for block in freed { free(block) }
        return taken.map { ($0.start, $0.capacity) }
    }

    /// Whether a want of `bytes` is the size of a block of `capacity` that held `held`:
    /// the block would serve it, and it is at least half of what the block held. What
    /// the reclaimable tier counts as a size that comes again, for taking its blocks and
    /// for keeping them.
    private static func servesItsSize(_ bytes: Int, capacity: Int, held: Int) -> Bool {
        capacity >= bytes && held / 2 <= bytes
    }

    /// Remembers the capacity of `block` and what it held, freed for want of room at `now`,
    /// when it held more than the ready tier keeps and not more than the reclaimable one
    /// does (under the lock).
    private func noteFreedForWantOfRoom(_ block: Kept, now: UInt64) {
        guard block.resident > Self.maximumReady, block.resident <= Self.maximumReclaimable else { return }
        if recentlyFreed.count == Self.remembered { recentlyFreed.removeFirst() }
        recentlyFreed.append((block.capacity, block.resident, now))
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
                reclaimable = (reclaimable.count + 1, reclaimable.bytes + block.resident)
            } else {
                ready = (ready.count + 1, ready.bytes + block.resident)
            }
        }
        var leaving: [Int] = []
        for index in blocks.indices where !blocks[index].reclaimable {
            guard ready.bytes > Self.maximumReady || ready.count > Self.maximumReadyBlocks else { break }
            ready = (ready.count - 1, ready.bytes - blocks[index].resident)
            if now < keepsReclaimableUntil, Self.markReclaimable(blocks[index].start, blocks[index].capacity) {
                blocks[index].reclaimable = true
                blocks[index].since = now
                reclaimable = (reclaimable.count + 1, reclaimable.bytes + blocks[index].resident)
            } else {
                noteFreedForWantOfRoom(blocks[index], now: now)
                leaving.append(index)
            }
        }
        for index in blocks.indices where blocks[index].reclaimable {
            let block = blocks[index]
            if reclaimable.bytes > Self.maximumReclaimable || reclaimable.count > Self.maximumReclaimableBlocks {
                noteFreedForWantOfRoom(block, now: now)
            } else if now &- block.since < Self.reclaimableLifetime {
                continue
            }
            reclaimable = (reclaimable.count - 1, reclaimable.bytes - block.resident)
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

    /// The bytes of the pages of `block` (of `capacity` bytes) in memory, as the kernel
    /// counts them (`mincore`: a page never written is not; one marked `MADV_FREE` is
    /// until the kernel takes it); `capacity` when it cannot tell. A block of 256 MiB
    /// takes it some 50 µs.
    private static func residentBytes(_ block: UnsafeMutableRawPointer, _ capacity: Int) -> Int {
        let first = Int(bitPattern: block) & ~(pageSize - 1)
        let pages = (Int(bitPattern: block) + capacity - first + pageSize - 1) / pageSize
        let inMemory = [UInt8](unsafeUninitializedCapacity: pages) { vector, count in
            count = mincore(UnsafeMutableRawPointer(bitPattern: first), pages * pageSize, vector.baseAddress) == 0 ? pages : 0
        }
        guard inMemory.count == pages else { return capacity }
        return Swift.min(capacity, inMemory.reduce(0) { $0 + Int($1 & 1) } * pageSize)
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
