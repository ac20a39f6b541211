import Glibc

/// Records by key: put (field-level merge), get, remove, key groups, stats.
extension NormalizedCache {
    /// Merges records given in JSON notation
    /// (`{"Key": {"field": value, "ref": {"$reference": "Other:1"}}}`) in one atomic
    /// transaction and returns the changed fields as `recordKey.fieldKey` strings, in
    /// input order (none when not `reportingChanges`). On any error nothing is written.
    public func put(json: UnsafeRawBufferPointer, reportingChanges: Bool = true) throws(NormCacheError) -> ChangedFields {
        try interruptible { () throws(NormCacheError) in
            let batch = try RecordBatch(json: json)
            return try merge(batch, reportingChanges: reportingChanges)
        }
    }

    /// `put(json:)` with a lifetime for what it writes, as `write` with `WriteOptions`
    /// takes it: the fields given are stamped with the earliest expiry the options give
    /// (the records' other stored fields keep theirs); `Cache-Control: no-store` writes
    /// nothing and parses nothing (`isStored` false). `strictKeys` has nothing to refuse
    /// here: records come with their keys, and `keyFallbacks` is 0.
    public func put(json: UnsafeRawBufferPointer, options: WriteOptions, reportingChanges: Bool = true) throws(NormCacheError) -> WriteResult {
        try write(options, reportingChanges: reportingChanges) { (merge) throws(NormCacheError) in
            let batch = try RecordBatch(json: json)
            return try merge(batch)
        }
    }

    /// Merges a batch in one transaction (see `Writer`), its fields stamped with
    /// `metadata` (default: the time now, no expiry).
    func merge(_ batch: borrowing RecordBatch, reportingChanges: Bool, metadata: FieldMetadata? = nil) throws(NormCacheError) -> ChangedFields {
        let stamp: FieldMetadata
        if let metadata { stamp = metadata } else { stamp = FieldMetadata(writtenAt: try clock.now()) }
        return try Writer(store: store, encoder: RecordEncoder(metadata: stamp)).merge(batch, reportingChanges: reportingChanges)
    }

    /// `put(json:)` for JSON text.
    public func put(json: String) throws(NormCacheError) -> ChangedFields {
        try json.withUTF8Bytes { (bytes) throws(NormCacheError) in try put(json: bytes) }
    }

    /// `put(json:options:)` for JSON text.
    public func put(json: String, options: WriteOptions) throws(NormCacheError) -> WriteResult {
        try json.withUTF8Bytes { (bytes) throws(NormCacheError) in try put(json: bytes, options: options) }
    }

    /// The record `key` as the JSON object of its fields, ordered by field key bytes,
    /// or nil when there is no such record.
    public func record(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> [UInt8]? {
        try withRecordJSON(key) { (out) throws(NormCacheError) in
            try out.check(while: "reading the record")
            return out.array
        }
    }

    /// `record(_:)` as the C interface hands it over: one malloc'd, NUL-terminated block
    /// that the caller releases with `free`, or nil when there is no such record.
    package func recordBlock(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> (block: UnsafeMutableRawPointer, count: Int)? {
        try withRecordJSON(key) { (out) throws(NormCacheError) in
            let block = try out.takeBlock(while: "reading the record")
            return (block.start, block.count)
        }
    }

    /// Writes the record `key` as JSON into a buffer and hands it to `finish`, inside
    /// the read transaction; nil when there is no such record.
    private func withRecordJSON<R>(_ key: UnsafeRawBufferPointer,
                                   _ finish: (consuming ByteBuffer) throws(NormCacheError) -> R) throws(NormCacheError) -> R? {
        try Self.checkKey(key, what: "record key")
        // The closure captures no object: a reference it held would be counted at each
        // step down, atomic writes to a line that every thread reading the handle shares.
        let found = try store.read { (txn) throws(NormCacheError) -> R? in
            guard let stored = try txn.record(key) else { return nil }
            var out = ByteBuffer(capacity: stored.count + 16)
            guard let view = RecordView(stored), view.appendJSON(to: &out) else { throw txn.damaged(key) }
            return try finish(out)
        }
        store.counters.countRead(found == nil ? .miss : .complete)
        return found
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

    /// Deletes the field `field` (its storage key as stored, exact bytes: `feed(first:10)`)
    /// of the record `key` in one write transaction, so that the next read of it misses;
    /// the other fields keep their values and times. A record left without fields is
    /// deleted, as Apollo's `evict` does. Returns false when the record or the field was
    /// absent (nothing is written).
    public func removeField(_ field: UnsafeRawBufferPointer, of key: UnsafeRawBufferPointer) throws(NormCacheError) -> Bool {
        try Self.checkKey(key, what: "record key")
        try Self.checkKey(field, what: "field key")
        return try store.write { (txn) throws(NormCacheError) -> Bool in
            guard let stored = try txn.record(key) else { return false }
            guard let view = RecordView(stored), let found = view.index(of: field) else { throw txn.damaged(key) }
            guard let index = found else { return false }
            if view.count == 1 { return try txn.removeRecord(key) }
            var out = ByteBuffer(capacity: stored.count)
            _ = try RecordEncoder.rewrite(view, into: &out, key: key) { position, _ in position == index ? .drop : .keep }
            try txn.setRecord(key, out.bytes)
            txn.changes?.noteField(record: key, field: field)
            return true
        }
    }

    /// `removeField(_:of:)` for `String` arguments.
    public func removeField(_ field: String, of key: String) throws(NormCacheError) -> Bool {
        try key.withUTF8Bytes { (keyBytes) throws(NormCacheError) in
            try field.withUTF8Bytes { (fieldBytes) throws(NormCacheError) in try removeField(fieldBytes, of: keyBytes) }
        }
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
        let (block, count) = try keysBlock(withPrefix: prefix, after: after, limit: limit)
        defer { free(block) }
        return Array(UnsafeRawBufferPointer(start: block, count: count))
    }

    /// `keysJSON` as the C interface hands it over: one malloc'd, NUL-terminated block
    /// that the caller releases with `free`.
    package func keysBlock(withPrefix prefix: UnsafeRawBufferPointer, after: UnsafeRawBufferPointer? = nil,
                           limit: Int = 0) throws(NormCacheError) -> (block: UnsafeMutableRawPointer, count: Int) {
        try Self.checkSearch(prefix, after, limit)
        return try store.read { (txn) throws(NormCacheError) in
            var out = ByteBuffer()
            out.append(UInt8(ascii: "["))
            try txn.forEachKey(withPrefix: prefix, after: after, limit: limit, into: &out) { out, key in
                if out.count > 1 { out.append(UInt8(ascii: ",")) }
                out.appendQuoted(key)
            }
            out.append(UInt8(ascii: "]"))
            let block = try out.takeBlock(while: "listing the keys")
            return (block.start, block.count)
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
        let (count, saved, data, log) = try store.read { (txn) throws(NormCacheError) in
            (try txn.recordCount(), try Self.savedFingerprint(in: txn), try txn.dataBytes(), try txn.logPageBytes())
        }
        let map = try store.mapFacts()
        let readers = try store.readerFacts()
        return CacheStats(records: count, bytesUsed: map.bytesUsed, dataBytes: data, logBytes: log, maxBytes: options.maxBytes,
                          mapSize: map.mapSize, pageSize: map.pageSize,
                          formatVersion: store.formatVersion, readOnly: options.readOnly,
                          durability: store.durability, rulesFingerprint: rules.fingerprint.map { SavedRules.text($0) },
                          savedRulesFingerprint: saved.map { SavedRules.text($0) }, readers: readers.reading,
                          readerSlots: readers.taken, maxReaders: readers.slots, oldestReaderLag: readers.oldestLag)
    }

    private static func checkSearch(_ prefix: UnsafeRawBufferPointer, _ after: UnsafeRawBufferPointer?,
                                    _ limit: Int) throws(NormCacheError) {
        guard limit >= 0 else { throw NormCacheError(.invalidArgument, "negative limit \(limit)") }
        try checkUTF8(prefix, what: "prefix")
        if let after { try checkUTF8(after, what: "after key") }
    }

    static func checkKey(_ key: UnsafeRawBufferPointer, what: String) throws(NormCacheError) {
        guard !key.isEmpty else { throw NormCacheError(.invalidArgument, "empty \(what)") }
        try checkUTF8(key, what: what)
    }

    /// Keys are mostly ASCII: eight bytes are checked at a time for a high bit, and only
    /// a key with one is validated in full (which would also make a `String` of it).
    private static func checkUTF8(_ bytes: UnsafeRawBufferPointer, what: String) throws(NormCacheError) {
        if isASCII(bytes) { return }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw NormCacheError(.invalidArgument, "\(what) is not valid UTF-8")
        }
    }

    /// Whether every byte is below 0x80.
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        var high: UInt64 = 0
        while offset + 8 <= bytes.count {
            high |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            high |= UInt64(bytes[offset])
            offset += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
