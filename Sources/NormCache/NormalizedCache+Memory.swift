import CMalloc
import Glibc

/// The memory the library keeps between calls.
extension NormalizedCache {
    /// Frees the large blocks of memory kept for later calls, and returns the bytes of
    /// memory they held (see `BlockPool`: a block over 32 MiB counts its pages in memory).
    ///
    /// Writes and reads of large responses let go of blocks of 256 KiB and more (the scan's
    /// tape, the write's batch, a C caller's read results of more than 32 MiB once freed),
    /// and the library keeps them so that the next call does not fault in fresh pages: up
    /// to 32 MiB ready and, once blocks of a size come again, up to 256 MiB more marked
    /// `MADV_FREE`, which the kernel takes back when memory runs short and which are freed
    /// after 10 seconds unused (see `BlockPool`). They count in the process's resident
    /// set until then; this frees them all now, as SQLite's `sqlite3_release_memory`.
    /// Process-wide and thread-safe; later calls keep blocks again.
    public static func releaseMemory() -> Int {
        BlockPool.shared.releaseAll()
    }

    /// Lets go of a buffer this library handed to a C caller (`normcache_free`): one
    /// larger than the pool's ready tier is kept for later calls, as the library's own
    /// blocks are; a smaller one goes back to malloc, which reuses blocks up to 32 MiB on
    /// its own (glibc's dynamic mmap threshold), as it did before the pool took any.
    package static func releaseHandedOut(_ buffer: UnsafeMutableRawPointer?) {
        guard let buffer else { return }
        let capacity = malloc_usable_size(buffer)
        guard capacity > BlockPool.maximumReady else { return free(buffer) }
        BlockPool.shared.release(buffer, capacity: capacity)
    }
}
