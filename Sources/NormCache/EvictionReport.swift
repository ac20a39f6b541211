/// What an eviction removed (`NormalizedCache.trim`, or a write over
/// `CacheOptions.maxBytes`).
public struct EvictionReport: Equatable, Sendable {
    /// The records evicted from one key group (see `KeyGroupStats.group`).
    public struct Group: Equatable, Sendable {
        /// The key group (`Pet:`, `QUERY_ROOT`).
        public var group: String
        /// The records evicted from it.
        public var records: Int
    }

    /// The records evicted.
    public var records = 0
    /// The bytes those records took in LMDB (keys, stored records and entry overhead).
    public var bytes = 0
    /// The data bytes (`CacheStats.dataBytes`) before the eviction.
    public var dataBytesBefore: Int
    /// The data bytes after it.
    public var dataBytesAfter = 0
    /// The records evicted by key group, ordered by the bytes of the group's name.
    public var groups: [Group] = []

    /// A report of nothing evicted yet from data of `dataBytesBefore` bytes.
    init(dataBytesBefore: Int) {
        self.dataBytesBefore = dataBytesBefore
    }

    /// The report as the JSON object of `normcache_trim`:
    /// `{"records":2,"bytes":180,"data_bytes_before":..,"data_bytes_after":..,"groups":{"User:":2}}`.
    public var json: [UInt8] {
        var object = JSONObject()
        object.add(["records": records, "bytes": bytes, "data_bytes_before": dataBytesBefore, "data_bytes_after": dataBytesAfter])
        object.add("groups", membersFor: groups) { counts, group in counts.add(group.group, group.records) }
        return object.bytes
    }
}
