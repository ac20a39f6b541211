import Glibc

/// When a writer releases the reader slots of processes that died inside a read
/// (`LMDBEnvironment.clearStaleReaders`): LMDB asks applications to do it regularly,
/// as a dead reader's snapshot pins every page freed after it and the file grows
/// instead of reusing them. A check is due before a write when the coarse monotonic
/// clock (read without a system call) has moved to another second since the last one,
/// or when the pages in use grew since the last one (a write found no free pages to
/// reuse, so the next one may grow the file too): a dead reader costs at most the
/// writes of about a second, and a file that grows is never left pinned. Used under
/// the writers' mutex.
struct StaleReaderSchedule {
    private var lastSecond = Int.min
    private var lastPages = 0

    /// Whether a check is due before a write, with `pages` pages in use now; when it
    /// is, the check is counted as made.
    mutating func isDue(pages: Int) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        let second = Int(now.tv_sec)
        guard second != lastSecond || pages > lastPages else { return false }
        lastSecond = second
        lastPages = pages
        return true
    }
}
