/// A copy of a cache in use, as `mdb_copy -c` makes one.
extension NormalizedCache {
    /// Writes a compacted copy of the cache file to `destination`, a new file (an
    /// existing one is refused): the records as of one moment, while other threads and
    /// processes go on reading and writing. Works on a handle opened read-only. The
    /// copy is a cache file of its own, opened like any other.
    public func copy(to destination: String) throws(NormCacheError) {
        try store.copy(to: destination)
    }
}
