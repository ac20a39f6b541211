/// What a garbage collection removed (or, in a dry run, would remove).
public struct GarbageCollectionReport: Equatable, Sendable {
    /// The removals of one key group (`KeyGroupStats.group(of:)`).
    public struct Group: Equatable, Sendable {
        /// The group, as `KeyGroupStats.group(of:)` names it (`Book:`, `QUERY_ROOT`).
        public var name: String
        /// Records removed whole.
        public var records: Int
        /// Fields removed from records that were reachable (stale or dangling).
        public var fields: Int
    }

    /// Whether nothing was written.
    public var dryRun: Bool
    /// Records removed whole: `unreachableRecords + emptiedRecords`.
    public var removedRecords: Int
    /// Records no root reaches.
    public var unreachableRecords: Int
    /// Reachable records every field of which was removed.
    public var emptiedRecords: Int
    /// Fields removed from reachable records: `staleFields + danglingFields`.
    public var removedFields: Int
    /// Fields stale beyond the grace period.
    public var staleFields: Int
    /// Fields that held a reference to an absent record.
    public var danglingFields: Int
    /// Records left.
    public var keptRecords: Int
    /// The removals per key group, in byte order of the group names; groups with none
    /// are left out.
    public var groups: [Group]
    /// The bytes of the mark set at its largest.
    public var markSetBytes: Int
    /// The time the collection took, in microseconds (its transaction, retries included).
    public var elapsedMicroseconds: UInt64

    /// The report as the JSON object of `normcache_gc`:
    /// `{"dry_run":false,"removed_records":2,"unreachable_records":2,"emptied_records":0,
    /// "removed_fields":0,"stale_fields":0,"dangling_fields":0,"kept_records":3,
    /// "groups":{"Book:":{"records":2,"fields":0}},"mark_set_bytes":32768,"elapsed_us":120}`.
    public var json: [UInt8] {
        var object = JSONObject()
        object.add("dry_run", dryRun)
        object.add([
            "removed_records": removedRecords, "unreachable_records": unreachableRecords, "emptied_records": emptiedRecords,
            "removed_fields": removedFields, "stale_fields": staleFields, "dangling_fields": danglingFields, "kept_records": keptRecords,
        ])
        object.add("groups", membersFor: groups) { counts, group in
            counts.add(group.name) { $0.add(["records": group.records, "fields": group.fields]) }
        }
        object.add("mark_set_bytes", markSetBytes)
        object.add("elapsed_us", elapsedMicroseconds)
        return object.bytes
    }
}

/// What `NormalizedCache.collectGarbage` removes besides unreachable records.
public struct GarbageCollectionOptions: Equatable, Sendable {
    /// Reports what would be removed and writes nothing (in a read transaction: writers
    /// do not wait).
    public var dryRun: Bool
    /// When given, removes every field whose stored expiry (from its write's max-age or
    /// `Cache-Control`, or from an invalidation) is at least this many seconds past:
    /// `expiry + grace <= now`. Max-age rules are not applied (they belong to reads,
    /// which can override them). nil keeps stale fields.
    public var staleGrace: UInt64?
    /// Removes the fields of reachable records that hold a reference to an absent
    /// record, anywhere in their value (a list holding one loses the whole field).
    public var removeDanglingReferences: Bool

    /// Options as named; the default removes unreachable records only.
    public init(dryRun: Bool = false, staleGrace: UInt64? = nil, removeDanglingReferences: Bool = false) {
        self.dryRun = dryRun
        self.staleGrace = staleGrace
        self.removeDanglingReferences = removeDanglingReferences
    }
}
