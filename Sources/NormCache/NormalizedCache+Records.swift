/// Records by key: put (field-level merge), get, remove, key groups, stats.
extension NormalizedCache {
    /// Merges records given in JSON notation
    /// (`{"Key": {"field": value, "ref": {"$reference": "Other:1"}}}`) in one atomic
    /// transaction and returns the changed fields as `recordKey.fieldKey` strings, in
    /// input order (none when not `reportingChanges`). On any error nothing is written.
    public func put(json: UnsafeRawBufferPointer, reportingChanges: Bool = true) throws(NormCacheError) -> [String] {
        try merge(RecordBatch(json: json), reportingChanges: reportingChanges)
    }

    /// Merges a batch in one transaction; returns the changed fields in input order when
    /// `reportingChanges`.
    func merge(_ batch: RecordBatch, reportingChanges: Bool) throws(NormCacheError) -> [String] {
        let writtenAt = clock()
        return try store.write(reserving: batch.byteCount) { (txn) throws(NormCacheError) -> [String] in
            var changed: [(order: Int, key: String)] = []
            let scratch = MergeScratch()
            for entry in batch.entries {
                let keyText = { String(decoding: entry.key, as: UTF8.self) }
                let merged = try entry.key.withBytes { (key) throws(NormCacheError) -> MergedRecord in
                    var existing: RecordView?
                    if let stored = try txn.record(key) {
                        guard let view = RecordView(stored) else { throw txn.damaged(key) }
                        existing = view
                    }
                    let merged = try RecordView.merge(existing, entry.fields, writtenAt: writtenAt, recordKey: keyText(),
                                                      writer: &scratch.writer, into: &scratch.record)
                    if merged.rewritten {
                        try scratch.record.withBytes { (record) throws(NormCacheError) in try txn.setRecord(key, record) }
                    }
                    return merged
                }
                guard reportingChanges else { continue }
                for index in merged.changed {
                    let field = entry.fields[index]
                    changed.append((field.order, keyText() + "." + String(decoding: field.key, as: UTF8.self)))
                }
            }
            return changed.sorted { $0.order < $1.order }.map(\.key)
        }
    }

    /// `put(json:)` for JSON text.
    public func put(json: String) throws(NormCacheError) -> [String] {
        try json.withUTF8Bytes { (bytes) throws(NormCacheError) in try put(json: bytes) }
    }

    /// The record `key` as the JSON object of its fields, ordered by field key bytes,
    /// or nil when there is no such record.
    public func record(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> [UInt8]? {
        try Self.checkKey(key, what: "record key")
        return try store.read { (txn) throws(NormCacheError) -> [UInt8]? in
            guard let stored = try txn.record(key) else { return nil }
            guard let view = RecordView(stored) else { throw txn.damaged(key) }
            var out = ByteBuffer(capacity: stored.count + 16)
            out.append(UInt8(ascii: "{"))
            for index in 0..<view.count {
                guard let field = view.entry(at: index) else { throw txn.damaged(key) }
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.appendQuoted(field.key)
                out.append(UInt8(ascii: ":"))
                var reader = ByteReader(field.value)
                guard case .written = FieldValue.appendJSON(from: &reader, to: &out), reader.isAtEnd else { throw txn.damaged(key) }
            }
            out.append(UInt8(ascii: "}"))
            return out.array
        }
    }

    /// `record(_:)` for a `String` key, as JSON text.
    public func record(_ key: String) throws(NormCacheError) -> String? {
        try key.withUTF8Bytes { (bytes) throws(NormCacheError) in try record(bytes) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Deletes the record `key`; returns false when there was none.
    public func remove(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> Bool {
        try Self.checkKey(key, what: "record key")
        return try store.write { (txn) throws(NormCacheError) in try txn.removeRecord(key) }
    }

    /// `remove(_:)` for a `String` key.
    public func remove(_ key: String) throws(NormCacheError) -> Bool {
        try key.withUTF8Bytes { (bytes) throws(NormCacheError) in try remove(bytes) }
    }

    /// Deletes every record whose key starts with `prefix` (not empty: use `clear`),
    /// atomically; returns how many.
    public func removeAll(withPrefix prefix: UnsafeRawBufferPointer) throws(NormCacheError) -> Int {
        try Self.checkKey(prefix, what: "prefix")
        return try store.write { (txn) throws(NormCacheError) in try txn.removeRecords(withPrefix: prefix) }
    }

    /// `removeAll(withPrefix:)` for a `String` prefix.
    public func removeAll(withPrefix prefix: String) throws(NormCacheError) -> Int {
        try prefix.withUTF8Bytes { (bytes) throws(NormCacheError) in try removeAll(withPrefix: bytes) }
    }

    /// Deletes every record.
    public func clear() throws(NormCacheError) {
        try store.write { (txn) throws(NormCacheError) in try txn.removeAllRecords() }
    }

    /// The keys that start with `prefix` (empty: every key), in byte order, strictly
    /// after `after` when given, at most `limit` (0: no limit).
    public func keys(withPrefix prefix: UnsafeRawBufferPointer, after: UnsafeRawBufferPointer? = nil,
                     limit: Int = 0) throws(NormCacheError) -> [String] {
        try Self.checkSearch(prefix, after, limit)
        return try store.read { (txn) throws(NormCacheError) in
            try txn.keys(withPrefix: prefix, after: after, limit: limit).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// `keys(withPrefix:after:limit:)` as a JSON array of strings, made straight from the
    /// stored keys.
    public func keysJSON(withPrefix prefix: UnsafeRawBufferPointer, after: UnsafeRawBufferPointer? = nil,
                         limit: Int = 0) throws(NormCacheError) -> [UInt8] {
        try Self.checkSearch(prefix, after, limit)
        return try store.read { (txn) throws(NormCacheError) in
            var out: [UInt8] = [UInt8(ascii: "[")]
            try txn.forEachKey(withPrefix: prefix, after: after, limit: limit) { key in
                if out.count > 1 { out.append(UInt8(ascii: ",")) }
                JSONString.appendQuoted(key, to: &out)
            }
            out.append(UInt8(ascii: "]"))
            return out
        }
    }

    /// `keys(withPrefix:after:limit:)` for `String` arguments.
    public func keys(withPrefix prefix: String, after: String? = nil, limit: Int = 0) throws(NormCacheError) -> [String] {
        try prefix.withUTF8Bytes { (prefixBytes) throws(NormCacheError) in
            guard let after else { return try keys(withPrefix: prefixBytes, limit: limit) }
            return try after.withUTF8Bytes { (afterBytes) throws(NormCacheError) in
                try keys(withPrefix: prefixBytes, after: afterBytes, limit: limit)
            }
        }
    }

    /// Facts about the cache.
    public func stats() throws(NormCacheError) -> CacheStats {
        let count = try store.read { (txn) throws(NormCacheError) in try txn.recordCount() }
        let map = try store.mapFacts()
        return CacheStats(records: count, bytesUsed: map.bytesUsed, mapSize: map.mapSize, pageSize: map.pageSize,
                          formatVersion: store.formatVersion, readOnly: options.readOnly,
                          durability: store.durability)
    }

    private static func checkSearch(_ prefix: UnsafeRawBufferPointer, _ after: UnsafeRawBufferPointer?,
                                    _ limit: Int) throws(NormCacheError) {
        guard limit >= 0 else { throw NormCacheError(.invalidArgument, "negative limit \(limit)") }
        try checkUTF8(prefix, what: "prefix")
        if let after { try checkUTF8(after, what: "after key") }
    }

    private static func checkKey(_ key: UnsafeRawBufferPointer, what: String) throws(NormCacheError) {
        guard !key.isEmpty else { throw NormCacheError(.invalidArgument, "empty \(what)") }
        try checkUTF8(key, what: what)
    }

    private static func checkUTF8(_ bytes: UnsafeRawBufferPointer, what: String) throws(NormCacheError) {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw NormCacheError(.invalidArgument, "\(what) is not valid UTF-8")
        }
    }
}
