/// Plain JSON documents (REST): any JSON value under a key of the caller's choosing
/// (`GET /articles?page=1`), with a lifetime, got back whole with its freshness. A
/// document is a record (`DocumentRecord`), so it is listed, removed and invalidated by
/// key or prefix like any other.
extension NormalizedCache {
    /// Stores the JSON value `json` (checked, kept as written) as the document `key`, in
    /// one transaction, replacing any document there; its expiry is the one `options`
    /// gives (see `WriteOptions`; none: it never expires). Returns false, writing
    /// nothing, when the headers say `Cache-Control: no-store`. A record of fields under
    /// `key` is not replaced: `.invalidArgument`.
    @discardableResult
    public func putDocument(_ key: UnsafeRawBufferPointer, json: UnsafeRawBufferPointer,
                            options: WriteOptions = WriteOptions()) throws(NormCacheError) -> Bool {
        try storeDocument(key, json: json, options: options, writing: true, now: clock.now()) != .noStore
    }

    /// Checks the document `json` and its lifetime; stores it under `key`, written at
    /// `now`, when `writing` and the headers allow; returns the expiry it has (or would
    /// have), or `.noStore`.
    func storeDocument(_ key: UnsafeRawBufferPointer, json: UnsafeRawBufferPointer, options: WriteOptions,
                       writing: Bool, now: UInt64) throws(NormCacheError) -> WriteExpiry {
        try Self.checkKey(key, what: "document key")
        _ = try JSONDocument(scanning: json)
        let lifetime = try options.expiry(now: now)
        guard writing, case .at(let expiry) = lifetime else { return lifetime }
        let record = try DocumentRecord.encode(json, key: key, metadata: FieldMetadata(writtenAt: now, expiresAt: expiry))
        try store.write(reserving: record.count) { (txn) throws(NormCacheError) in
            if let stored = try txn.record(key) { _ = try DocumentRecord.decode(stored, key: key, in: txn) }
            try txn.setRecord(key, record.bytes)
        }
        return lifetime
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
    /// `field`) or too stale. Times are reported when `options.reportingFreshness`.
    public func document(_ key: UnsafeRawBufferPointer, options: ReadOptions = ReadOptions()) throws(NormCacheError) -> ReadResult {
        try Self.checkKey(key, what: "document key")
        let freshness = FreshnessCheck(now: try clock.now(), maxStale: options.maxStale, rules: MaxAgeRules(),
                                       reports: options.reportingFreshness, ignoresExpiry: options.ignoringFreshness)
        let name = String(decoding: key, as: UTF8.self)
        return try store.read { (txn) throws(NormCacheError) -> ReadResult in
            guard let stored = try txn.record(key) else {
                return ReadResult(status: .miss, data: nil, missing: [FieldReport(path: [], reason: .absent, record: name, field: nil)])
            }
            let (json, metadataBytes) = try DocumentRecord.decode(stored, key: key, in: txn)
            guard let metadata = FieldMetadata(metadataBytes) else { throw txn.damaged(key) }
            let expiry = FreshnessCheck.expiry(of: metadata, maxAge: MaxAgeRules.forever)
            var result = ReadResult(status: .complete, data: Array(json))
            if freshness.reports {
                result.oldestWrittenAt = metadata.writtenAt
                result.earliestExpiry = expiry == .max ? nil : expiry
            }
            let verdict = freshness.verdict(expiry: expiry)
            if case .fresh = verdict { return result }
            let report = FieldReport(path: [], reason: metadata.isInvalidated ? .invalidated : .stale, record: name, field: nil,
                                     writtenAt: metadata.writtenAt, expiredAt: expiry)
            if case .staleReturned = verdict {
                result.status = .stale
                result.stale = [report]
            } else {
                result.status = .miss
                result.data = options.partial ? result.data : nil
                result.missing = [report]
            }
            return result
        }
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
        return try Execution(target: DocumentTarget(cache: self, key: key), options: options).run(fetch: fetch, deliver: { onResult?($0) })
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
                                                                   earliestExpiry: expiry))
    }
}
