import Glibc

/// The large blocks of memory the last calls let go (a write's tape, batch and arenas),
/// kept for the next call: memory
/// fresh from the kernel costs a page fault and a zeroed page every 4 KiB, which for a
/// write of a few megabytes is a fifth of its time.
///
/// Bounded: blocks under `minimumBlock` are left to malloc, and at most `maximumBlocks`
/// blocks and `maximumRetained` bytes are kept (the oldest go first). A child process
/// after `fork()` neither takes nor keeps blocks (the pool and its lock belong to the
/// parent). In the checked build (`NORMCACHE_INTERNAL_CHECKS`) the pool of the process
/// keeps nothing, so that AddressSanitizer sees every block the core lets go of freed.
final class BlockPool: @unchecked Sendable {
    /// The pool of the process.
    #if NORMCACHE_INTERNAL_CHECKS
    static let shared = BlockPool(keepsBlocks: false)
    #else
    static let shared = BlockPool(keepsBlocks: true)
    #endif

    /// The smallest block kept.
    static let minimumBlock = 256 << 10
    /// The most bytes kept in all.
    static let maximumRetained = 32 << 20
    /// The most blocks kept.
    static let maximumBlocks = 8

    private let lock = Mutex()
    private var blocks: [(start: UnsafeMutableRawPointer, capacity: Int)] = []
    private var retained = 0
    /// The fork generation it was made in (`ForkSafety.registeredGeneration`): a child
    /// made by fork() neither takes nor keeps blocks.
    private let owner = ForkSafety.registeredGeneration
    /// Whether blocks are kept at all (else every block is malloc's own).
    private let keepsBlocks: Bool

    /// A pool that keeps large blocks, or, without `keepsBlocks`, frees every one.
    init(keepsBlocks: Bool = true) {
        self.keepsBlocks = keepsBlocks
    }

    deinit {
        for block in blocks { free(block.start) }
    }

    /// The blocks kept now, and their bytes.
    var kept: (blocks: Int, bytes: Int) {
        lock.withLock { (blocks.count, retained) }
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

    /// Lets go of `block` of `capacity` bytes: kept for a later call when it is large,
    /// else freed.
    func release(_ block: UnsafeMutableRawPointer?, capacity: Int) {
        guard let block else { return }
        guard keepsBlocks, capacity >= Self.minimumBlock, capacity <= Self.maximumRetained, ForkSafety.generation == owner else { return free(block) }
        var evicted: [UnsafeMutableRawPointer] = []
        lock.withLock {
            blocks.append((block, capacity))
            retained += capacity
            while retained > Self.maximumRetained || blocks.count > Self.maximumBlocks {
                let oldest = blocks.removeFirst()
                retained -= oldest.capacity
                evicted.append(oldest.start)
            }
        }
        for block in evicted { free(block) }
    }

    /// The smallest kept block of at least `bytes`, taken out of the pool.
    private func take(atLeast bytes: Int) -> (UnsafeMutableRawPointer, Int)? {
        guard keepsBlocks, ForkSafety.generation == owner else { return nil }
        return lock.withLock {
            var best: Int?
            for (index, block) in blocks.enumerated() where block.capacity >= bytes {
                if best.map({ block.capacity < blocks[$0].capacity }) ?? true { best = index }
            }
            guard let best else { return nil }
            let block = blocks.remove(at: best)
            retained -= block.capacity
            return (block.start, block.capacity)
        }
    }
}

extension NormCacheError {
    /// The error of an allocation of `bytes` that failed while doing `purpose` (a
    /// phrase: "scanning JSON"): the call fails with `.outOfMemory`, and the process goes on.
    static func outOfMemory(allocating bytes: Int, while purpose: String) -> NormCacheError {
        NormCacheError(.outOfMemory, "out of memory: could not allocate \(bytes) bytes while \(purpose)")
    }
}
