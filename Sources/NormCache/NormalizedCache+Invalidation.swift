/// Invalidation without deletion (Relay's `invalidateRecord`, Apollo Client's
/// `INVALIDATE`): the data stays, but reads treat it as stale from now on — a miss with
/// the reason `invalidated`, or, for a read that allows `maxStale`, data returned stale.
/// Writing a field again makes it fresh.
extension NormalizedCache {
    /// Marks the field `field` (its storage key, exact bytes) of the record `key` stale
    /// as of now, or every field of the record when `field` is nil, in one write
    /// transaction. A field already stale keeps its earlier expiry. Returns how many
    /// fields were marked: 0 when the record or the field is absent (nothing written).
    public func invalidate(_ key: UnsafeRawBufferPointer, field: UnsafeRawBufferPointer? = nil) throws(NormCacheError) -> Int {
        try Self.checkKey(key, what: "record key")
        if let field { try Self.checkKey(field, what: "field key") }
        let now = try clock.now()
        return try store.write { (txn) throws(NormCacheError) -> Int in
            try Self.invalidate(key, field: field, at: now, in: txn)
        }
    }

    /// `invalidate(_:field:)` for `String` arguments.
    public func invalidate(_ key: String, field: String? = nil) throws(NormCacheError) -> Int {
        try key.withUTF8Bytes { (keyBytes) throws(NormCacheError) in
            guard let field else { return try invalidate(keyBytes, field: nil) }
            return try field.withUTF8Bytes { (fieldBytes) throws(NormCacheError) in try invalidate(keyBytes, field: fieldBytes) }
        }
    }

    /// Marks every field of every record whose key starts with `prefix` (a key group,
    /// `Article:`) stale as of now, atomically; returns how many fields were marked.
    public func invalidateAll(withPrefix prefix: UnsafeRawBufferPointer) throws(NormCacheError) -> Int {
        try Self.checkKey(prefix, what: "prefix")
        let now = try clock.now()
        return try store.write { (txn) throws(NormCacheError) -> Int in
            var marked = 0
            for key in try txn.keys(withPrefix: prefix, after: nil, limit: 0) {
                marked += try key.withBytes { (bytes) throws(NormCacheError) in try Self.invalidate(bytes, field: nil, at: now, in: txn) }
            }
            return marked
        }
    }

    /// `invalidateAll(withPrefix:)` for a `String` prefix.
    public func invalidateAll(withPrefix prefix: String) throws(NormCacheError) -> Int {
        try prefix.withUTF8Bytes { (bytes) throws(NormCacheError) in try invalidateAll(withPrefix: bytes) }
    }

    /// Marks the field `field` (nil: every field) of the record `key` stale at `now`
    /// within `txn`; returns how many fields it marked.
    private static func invalidate(_ key: UnsafeRawBufferPointer, field: UnsafeRawBufferPointer?, at now: UInt64,
                                   in txn: StoreTransaction) throws(NormCacheError) -> Int {
        guard let stored = try txn.record(key) else { return 0 }
        guard let view = RecordView(stored) else { throw txn.damaged(key) }
        var only: Int?
        if let field {
            guard let found = view.index(of: field) else { throw txn.damaged(key) }
            guard let index = found else { return 0 }
            only = index
        }
        var out = ByteBuffer(capacity: stored.count + view.count * 6)
        var marked = 0
        _ = try RecordEncoder.rewrite(view, into: &out, key: key) { index, entry in
            guard only == nil || only == index, let metadata = FieldMetadata(entry.metadata) else { return .keep }
            marked += 1
            txn.changes?.noteField(record: key, field: entry.key)
            return .metadata(FieldMetadata(writtenAt: metadata.writtenAt, expiresAt: min(metadata.expiresAt ?? .max, now), isInvalidated: true))
        }
        try txn.setRecord(key, out.bytes)
        return marked
    }
}
