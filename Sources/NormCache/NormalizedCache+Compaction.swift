/// Compacting a cache file in place (see `InPlaceCompaction` for the procedure).
extension NormalizedCache {
    /// Rewrites the cache file at `path` without its free pages, so that it shrinks to
    /// the records it holds (a cleared cache to a few pages), and returns its size in
    /// bytes before and after. Only when no handle of this process and no other process
    /// has it open: otherwise it throws (`.invalidArgument` for this process,
    /// `.storage` naming a process for another) and changes nothing. A process that
    /// starts to open the file meanwhile waits until the compaction ends and opens the
    /// compacted file. Use `copy(to:)` to compact a cache that is in use into a new file.
    ///
    /// `options` are the options the cache is opened with: `maxReaders` sizes the lock
    /// table the compaction builds anew; `readOnly` is refused (`.readOnly`), as the
    /// compaction rewrites the file; the others do not apply.
    public static func compact(path: String, options: CacheOptions = CacheOptions()) throws(NormCacheError) -> (before: Int, after: Int) {
        guard !options.readOnly else {
            throw NormCacheError(.readOnly, "cannot compact '\(path)' with the option read_only: compacting rewrites the file")
        }
        return try InPlaceCompaction.compact(path: path, maxReaders: options.maxReaders)
    }
}
