/// Plain JSON documents (REST): any JSON value under a key of the caller's choosing
/// (`GET /articles?page=1`), with a lifetime, got back whole with its freshness. A
/// document is a record (`DocumentRecord`), so it is listed, removed and invalidated by
/// key or prefix like any other.
extension NormalizedCache {
    /// Stores the JSON value `json` (checked, kept as written) as the document `key`, in
    /// one transaction, replacing any document there; its expiry is the one `options`
    /// gives (see `WriteOptions`; none: it never expires), and it keeps `options.etag`
    /// (a malformed one is `.invalidArgument`) to be revalidated with. Returns false, writing
    /// nothing, when the headers say `Cache-Control: no-store`. A record of fields under
    /// `key` is not replaced: `.invalidArgument`.
    @discardableResult
    public func putDocument(_ key: UnsafeRawBufferPointer, json: UnsafeRawBufferPointer,
                            options: WriteOptions = WriteOptions()) throws(NormCacheError) -> Bool {
        try interruptible { () throws(NormCacheError) in
            try storeDocument(key, json: json, options: options, writing: true, now: clock.now()) != .noStore
        }
    }

    /// Checks the document `json` and its lifetime; stores it under `key`, written at
    /// `now`, when `writing` and the headers allow; returns the expiry it has (or would
    /// have), or `.noStore`. When the document rules find entities in it, they are merged
    /// into their records in the same transaction, stamped alike (`DocumentNormalizer`).
    func storeDocument(_ key: UnsafeRawBufferPointer, json: UnsafeRawBufferPointer, options: WriteOptions,
                       writing: Bool, now: UInt64) throws(NormCacheError) -> WriteExpiry {
        try Self.checkKey(key, what: "document key")
        let document = try JSONDocument(scanning: json)
        let lifetime = try options.expiry(now: now)
        guard writing, case .at(let expiry) = lifetime else { return lifetime }
        guard let etag = options.etag else {
            try storeDocument(key, document: document, json: json, etag: nil, metadata: FieldMetadata(writtenAt: now, expiresAt: expiry))
            return lifetime
        }
        try etag.withUTF8Bytes { (tag) throws(NormCacheError) in
            try EntityTag.check(tag)
            try storeDocument(key, document: document, json: json, etag: tag, metadata: FieldMetadata(writtenAt: now, expiresAt: expiry))
        }
        return lifetime
    }

    /// Stores the checked `document` (whose text is `json`) under `key` with its
    /// entity-tag `etag`, if any, and its entities, stamped with `metadata`.
    private func storeDocument(_ key: UnsafeRawBufferPointer, document: JSONDocument, json: UnsafeRawBufferPointer,
                               etag: UnsafeRawBufferPointer?, metadata: FieldMetadata) throws(NormCacheError) {
        let (schema, keyRules, _) = rules.current
        if !keyRules.documents.isEmpty {
            var skeleton = ByteBuffer()
            let normalizer = try DocumentNormalizer(document, key: key, rules: keyRules, schema: schema, skeleton: &skeleton)
            if normalizer.entityCount > 0 {
                var shape = ByteBuffer()
                try normalizer.encodeShape(into: &shape)
                try shape.check(while: "storing the document '\(KeyBytes.preview(key))'")
                let record = try DocumentRecord.encode(value: skeleton.bytes, shape: shape.bytes, etag: etag, key: key, metadata: metadata)
                try storeDocumentRecord(record.bytes, key: key, entities: normalizer.entities, metadata: metadata)
                return
            }
        }
        let record = try DocumentRecord.encode(json, etag: etag, key: key, metadata: metadata)
        try storeDocumentRecord(record.bytes, key: key, entities: RecordBatch(), metadata: metadata)
    }

    /// Replaces the document `key` with `record` and merges `entities` (if any), stamped
    /// with `metadata`, in one transaction. Refuses a record of fields under `key`, and
    /// an entity keyed as the document or as another stored document.
    private func storeDocumentRecord(_ record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                                     entities: borrowing RecordBatch, metadata: FieldMetadata) throws(NormCacheError) {
        try store.write(reserving: record.count + entities.byteCount) { (txn) throws(NormCacheError) in
            if let stored = try txn.record(key) { _ = try DocumentRecord.decode(stored, key: key, in: txn) }
            if entities.records.count > 0 {
                for index in 0..<entities.records.count {
                    let entity = entities.key(of: index)
                    guard !KeyBytes.equal(entity, key), !(try txn.record(entity).map(DocumentRecord.isDocument) ?? false) else {
                        throw NormCacheError(.invalidArgument, "the entity '\(KeyBytes.preview(entity))' of the document '\(KeyBytes.preview(key))' has the key of a document")
                    }
                }
                _ = try Writer(store: store, encoder: RecordEncoder(metadata: metadata)).merge(entities, in: txn, reportingChanges: false)
            }
            try txn.setRecord(key, record)
            txn.changes?.noteRecord(key)
        }
    }

    /// `putDocument(_:json:options:)` for `String` arguments.
    @discardableResult
    public func putDocument(_ key: String, json: String, options: WriteOptions = WriteOptions()) throws(NormCacheError) -> Bool {
        try key.withUTF8Bytes { (keyBytes) throws(NormCacheError) in
            try json.withUTF8Bytes { (jsonBytes) throws(NormCacheError) in try putDocument(keyBytes, json: jsonBytes, options: options) }
        }
    }

    /// The document `key`, judged by its expiry (and invalidation) as a read judges a
    /// field: `.complete` with its JSON as `data`; `.stale` with it when it expired no
    /// more than `options.maxStale` ago; `.miss` when it is absent (`reason` absent, no
    /// `field`) or too stale. Times are reported when `options.reportingFreshness`; the
    /// document's entity-tag, when it has one, is `etag` (a miss of a stored document has it too).
    public func document(_ key: UnsafeRawBufferPointer, options: ReadOptions = ReadOptions()) throws(NormCacheError) -> ReadResult {
        try Self.checkKey(key, what: "document key")
        let freshness = FreshnessCheck(now: try clock.now(), maxStale: options.maxStale, rules: MaxAgeRules(),
                                       reports: options.reportingFreshness, ignoresExpiry: options.ignoringFreshness)
        let result = try store.read { (txn) throws(NormCacheError) -> ReadResult in
            guard let stored = try txn.record(key) else {
                return ReadResult(status: .miss, data: nil, missing: [FieldReport(path: [], reason: .absent, record: String(decoding: key, as: UTF8.self), field: nil)])
            }
            let decoded = try DocumentRecord.decode(stored, key: key, in: txn)
            var result = try DocumentReader(txn, key: key, freshness: freshness).read(decoded.document, metadata: decoded.metadata,
                                                                                       key: key, options: options)
            result.etag = decoded.etag.map { String(decoding: $0, as: UTF8.self) }
            return result
        }
        store.counters.countRead(result.status)
        return result
    }

    /// `document` as the C interface hands it over: the whole result
    /// (`ByteBuffer.appendResult`, times reported) in one malloc'd, NUL-terminated block
    /// that the caller releases with `free`, and the read's status.
    package func documentBlock(_ key: UnsafeRawBufferPointer, options: ReadOptions) throws(NormCacheError)
        -> (block: UnsafeMutableRawPointer, count: Int, status: ReadResult.Status) {
        var options = options
        options.reportingFreshness = true
        let result = try document(key, options: options)
        var out = ByteBuffer()
        out.appendResult(result)
        let block = try out.takeBlock(while: "writing the document read")
        return (block.start, block.count, result.status)
    }

    /// `document(_:options:)` for a `String` key.
    public func document(_ key: String, options: ReadOptions = ReadOptions()) throws(NormCacheError) -> ReadResult {
        try key.withUTF8Bytes { (bytes) throws(NormCacheError) in try document(bytes, options: options) }
    }

    /// Runs the fetch policy of `options` for the document `key`, as `execute` does for
    /// an operation: `fetch` is asked with `FetchRequest.key` set (and no document) and
    /// answers the body and its caching headers, which is stored with the lifetime they
    /// give (or not, per the policy or `no-store`). The classic REST flow — "show the
    /// articles from the cache while they are younger than 30 minutes, else call the API
    /// and keep the answer" — is `cacheFirst` with the body stored for 1800 seconds.
    /// A body that is not JSON fails the call (`.json`) and nothing is written.
    public func executeDocument(_ key: String, options: ExecuteOptions = ExecuteOptions(),
                                fetch: (FetchRequest) throws(NormCacheError) -> FetchReply,
                                onResult: ((ExecutionResult) -> Void)? = nil) throws(NormCacheError) -> ExecutionResult {
        guard !key.isEmpty else { throw NormCacheError(.invalidArgument, "empty document key") }
        if FetchBehavior(options.policy, isMutation: false).cacheRead != .first {
            // A record of fields under the key is refused before anyone is asked.
            try key.withUTF8Bytes { (bytes) throws(NormCacheError) in
                try store.read { (txn) throws(NormCacheError) in
                    if let stored = try txn.record(bytes) { _ = try DocumentRecord.decode(stored, key: bytes, in: txn) }
                }
            }
        }
        return try interruptible { () throws(NormCacheError) in
            try Execution(target: DocumentTarget(cache: self, key: key), options: options).run(fetch: fetch, deliver: { onResult?($0) })
        }
    }
}

/// A plain JSON document as an execution target: the cache read is `document`; the
/// reply's body is stored as the document (unless not written) and returned as it came.
struct DocumentTarget: ExecutionTarget {
    let cache: NormalizedCache
    let key: String

    var isMutation: Bool { false }

    var request: FetchRequest { FetchRequest(document: "", operationName: nil, variables: [], key: key) }

    func cacheResult(maxStale: UInt64?, rendering: Bool) throws(NormCacheError) -> ExecutionResult {
        ExecutionResult(source: .cache, read: try cache.document(key, options: ReadOptions(maxStale: maxStale, reportingFreshness: true)))
    }

    func networkResult(_ reply: FetchReply, writing: Bool) throws(NormCacheError) -> ExecutionResult {
        let now = try cache.clock.now()
        let lifetime = try key.withUTF8Bytes { (keyBytes) throws(NormCacheError) in
            try reply.body.withBytes { (body) throws(NormCacheError) in
                try cache.storeDocument(keyBytes, json: body, options: reply.headers, writing: writing, now: now)
            }
        }
        var expiry: UInt64?
        if case .at(let time) = lifetime { expiry = time }
        return ExecutionResult(source: .network, read: ReadResult(status: .complete, data: reply.body, oldestWrittenAt: now,
                                                                   earliestExpiry: expiry, etag: reply.headers.etag))
    }
}
