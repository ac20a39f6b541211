import Glibc

/// Records by key: put (field-level merge), get, remove, key groups, stats.
extension NormalizedCache {
    /// Merges records given in JSON notation
    /// (`{"Key": {"field": value, "ref": {"$reference": "Other:1"}}}`) in one atomic
    /// transaction and returns the changed fields as `recordKey.fieldKey` strings, in
    /// input order (none when not `reportingChanges`). On any error nothing is written.
    public func put(json: UnsafeRawBufferPointer, reportingChanges: Bool = true) throws(NormCacheError) -> [String] {
        let batch = try RecordBatch(json: json)
        return try merge(batch, reportingChanges: reportingChanges)
    }

    /// Merges a batch in one transaction, records in key order; returns the changed
    /// fields in input order when `reportingChanges`.
    func merge(_ batch: borrowing RecordBatch, reportingChanges: Bool) throws(NormCacheError) -> [String] {
        let encoder = RecordEncoder(writtenAt: clock())
        let order = batch.recordsInKeyOrder()
        let changes = try store.write(reserving: batch.byteCount) { (txn) throws(NormCacheError) -> [Change] in
            var changes: [Change] = []
            var merged = ByteBuffer()
            let cursor = try txn.writeCursor()
            defer { cursor.close() }
            // Records past the last stored key are appended (the whole of a first write).
            let lastStored = try txn.lastStoredKey(cursor: cursor)
            var appending = lastStored == nil
            for recordIndex in order {
                let record = batch.records[Int(recordIndex)]
                let key = batch.key(of: Int(recordIndex))
                let fields = batch.fields.elements(Int(record.first)..<Int(record.first + record.count))
                let size = encoder.size(of: fields)
                try RecordEncoder.check(size: size, key: key)
                if !appending, let lastStored {
                    appending = lastStored.withUnsafeBytes { KeyBytes.compare(key, $0) > 0 }
                }
                switch try txn.insert(key, reserving: size, cursor: cursor, appending: appending) {
                case .reserved(let room):
                    encoder.write(fields, of: batch, to: room)
                    if reportingChanges {
                        for field in 0..<fields.count { changes.append(Change(order: fields[field].order, record: recordIndex, field: record.first + UInt32(field))) }
                    }
                case .existing(let stored):
                    CacheLines.prefetch(stored)
                    guard let view = RecordView(stored) else { throw txn.damaged(key) }
                    let rewrite = try encoder.merge(view, fields, of: batch, into: &merged, key: key) { field in
                        if reportingChanges { changes.append(Change(order: fields[field].order, record: recordIndex, field: record.first + UInt32(field))) }
                    }
                    if rewrite { try txn.replace(key, with: merged.bytes, cursor: cursor) }
                }
            }
            return changes
        }
        guard reportingChanges else { return [] }
        return changes.sorted { $0.order < $1.order }.map { change in
            let field = batch.fields[Int(change.field)]
            return String(decoding: batch.key(of: Int(change.record)), as: UTF8.self) + "." + String(decoding: field.keyBytes, as: UTF8.self)
        }
    }

    /// A field a write changed: its place in the input, its record and its index in the
    /// batch's fields.
    private struct Change {
        var order: UInt32
        var record: Int32
        var field: UInt32
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
            let block = out.takeBlock()
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
