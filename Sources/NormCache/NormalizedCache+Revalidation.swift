/// Revalidation of plain JSON documents: a `304 Not Modified` to an `If-None-Match` with
/// the document's entity-tag says that the stored document is still the server's, so its
/// freshness is renewed without rewriting it.
extension NormalizedCache {
    /// What `refreshDocument` did.
    public enum DocumentRefresh: Equatable, Sendable {
        /// The document has the new lifetime.
        case refreshed
        /// There is no document under the key: nothing was written.
        case absent
        /// The headers say `Cache-Control: no-store`: nothing was written.
        case notStored
    }

    /// Renews the freshness of the document `key` from a 304's `options` (its
    /// `Cache-Control`, `Age`, `Date`, `Expires`, a `maxAge` of the caller's), in one
    /// transaction, as if it had been written again now: its written-at time becomes now
    /// and its expiry the one `options` gives, an invalidation is lifted, and its body is
    /// not rewritten. `options.etag`, when given, replaces the stored entity-tag (a 304
    /// may send it again); otherwise the stored one stays.
    ///
    /// A document stored with entities is re-stamped whole: the 304 says its entire
    /// representation is unchanged, so every entity field that the document's own write
    /// stamped (its written-at time is the document's) gets the new times too, entities
    /// inside entities alike. A field written since by anything else (an operation, a
    /// `put`, another document) keeps its own times.
    ///
    /// Throws as `putDocument` does for a bad key, bad options (a malformed entity-tag
    /// among them) and a record of fields under `key`.
    public func refreshDocument(_ key: UnsafeRawBufferPointer, options: WriteOptions) throws(NormCacheError) -> DocumentRefresh {
        try Self.checkKey(key, what: "document key")
        let now = try clock.now()
        guard case .at(let expiry) = try options.expiry(now: now) else { return .notStored }
        let metadata = FieldMetadata(writtenAt: now, expiresAt: expiry)
        guard let etag = options.etag else { return try refresh(key, etag: nil, metadata: metadata) }
        return try etag.withUTF8Bytes { (tag) throws(NormCacheError) in
            try EntityTag.check(tag)
            return try refresh(key, etag: tag, metadata: metadata)
        }
    }

    /// `refreshDocument(_:options:)` for a `String` key.
    public func refreshDocument(_ key: String, options: WriteOptions) throws(NormCacheError) -> DocumentRefresh {
        try key.withUTF8Bytes { (bytes) throws(NormCacheError) in try refreshDocument(bytes, options: options) }
    }

    /// Stamps the document `key` (and its entities' fields) with `metadata`, giving it
    /// the entity-tag `etag` when not nil.
    private func refresh(_ key: UnsafeRawBufferPointer, etag: UnsafeRawBufferPointer?,
                         metadata: FieldMetadata) throws(NormCacheError) -> DocumentRefresh {
        try store.write { (txn) throws(NormCacheError) -> DocumentRefresh in
            guard let stored = try txn.record(key) else { return .absent }
            let decoded = try DocumentRecord.decode(stored, key: key, in: txn)
            guard let written = FieldMetadata(decoded.metadata) else { throw txn.damaged(key) }
            var entities: [[UInt8]] = []
            var shape: UnsafeRawBufferPointer?
            if case .skeleton(let skeleton, let entityShape) = decoded.document {
                shape = entityShape
                var reader = ByteReader(skeleton)
                guard FieldValue.collectReferences(&reader, into: &entities), reader.isAtEnd else { throw txn.damaged(key) }
            }
            let record = try DocumentRecord.encode(value: decoded.value, shape: shape, etag: etag ?? decoded.etag, key: key,
                                                   metadata: metadata)
            try Self.restamp(entities, writtenAt: written.writtenAt, with: metadata, in: txn)
            try txn.setRecord(key, record.bytes)
            txn.changes?.noteRecord(key)
            return .refreshed
        }
    }

    /// Gives `metadata` to every field of the records `keys` whose written-at time is
    /// `writtenAt`, and so on through the records their values refer to; a record that is
    /// gone is passed over.
    private static func restamp(_ keys: [[UInt8]], writtenAt: UInt64, with metadata: FieldMetadata,
                                in txn: StoreTransaction) throws(NormCacheError) {
        var pending = keys
        var seen = Set<[UInt8]>()
        var out = ByteBuffer()
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            try next.withBytes { (key) throws(NormCacheError) in
                guard let stored = try txn.record(key) else { return }
                guard let view = RecordView(stored) else { throw txn.damaged(key) }
                var damaged = false, restamped = false
                _ = try RecordEncoder.rewrite(view, into: &out, key: key) { _, field in
                    guard let times = FieldMetadata(field.metadata) else {
                        damaged = true
                        return .keep
                    }
                    guard times.writtenAt == writtenAt else { return .keep }
                    restamped = true
                    txn.changes?.noteField(record: key, field: field.key)
                    var reader = ByteReader(field.value)
                    if !FieldValue.collectReferences(&reader, into: &pending) || !reader.isAtEnd { damaged = true }
                    return .metadata(metadata)
                }
                if damaged { throw txn.damaged(key) }
                if restamped { try txn.setRecord(key, out.bytes) }
            }
        }
    }
}
