/// Facts about an open cache, as `NormalizedCache.stats()` reports them.
public struct CacheStats: Equatable, Sendable {
    /// The number of records.
    public var records: Int
    /// Bytes of the pages in use in the data file.
    public var bytesUsed: Int
    /// Bytes of the pages the records, the meta database and LMDB's main database
    /// hold: what `CacheOptions.maxBytes` bounds. Below `bytesUsed`, which also counts
    /// the commit log, LMDB's free pages and its two meta pages.
    public var dataBytes: Int
    /// Bytes of the pages of the commit log, which keeps its own bounds.
    public var logBytes: Int
    /// This handle's size limit (`CacheOptions.maxBytes`); 0 for none.
    public var maxBytes: Int
    /// The current size of the memory map in bytes.
    public var mapSize: Int
    /// LMDB's page size in bytes.
    public var pageSize: Int
    /// The format version of the file.
    public var formatVersion: Int
    /// Whether the cache is open read-only.
    public var readOnly: Bool
    /// The durability the cache was opened with.
    public var durability: CacheOptions.Durability
    /// The fingerprint of this handle's rules (16 hexadecimal digits), nil without any.
    public var rulesFingerprint: String?
    /// The fingerprint of the rules saved in the file, nil when it has none.
    public var savedRulesFingerprint: String?
    /// Reads of the file in progress in every process (each holds a reader slot). The
    /// slots of processes that died holding them are released first.
    public var readers: Int
    /// Reader slots of the file taken by every process: one for each read in progress,
    /// and up to two more a process keeps between its reads of the file (a renewed
    /// transaction is cheaper than a new one; they hold no snapshot, so pin no pages).
    /// A read finds a free slot while this is below `maxReaders`.
    public var readerSlots: Int
    /// The reader slots of the file (`CacheOptions.maxReaders` of its first open).
    public var maxReaders: Int
    /// How many commits the oldest snapshot still being read is behind the newest; 0
    /// when no read is in progress. A figure that keeps growing names a live reader
    /// that never ends its read (a stopped process, one in a debugger): until it does,
    /// no page freed after its snapshot is reused and the file grows.
    public var oldestReaderLag: Int

    /// The stats as the JSON object of `normcache_stats`.
    public var json: [UInt8] {
        var object = JSONObject()
        object.add([
            "records": records, "bytes_used": bytesUsed, "data_bytes": dataBytes, "log_bytes": logBytes, "max_bytes": maxBytes,
            "map_size": mapSize, "page_size": pageSize, "format_version": formatVersion,
        ])
        object.add("library_version", "\(NormalizedCache.version)")
        object.add("read_only", readOnly)
        object.add("durability", durability.rawValue)
        object.add("rules_fingerprint", rulesFingerprint)
        object.add("saved_rules_fingerprint", savedRulesFingerprint)
        object.add(["readers": readers, "reader_slots": readerSlots, "max_readers": maxReaders,
                    "oldest_reader_lag": oldestReaderLag])
        return object.bytes
    }
}
