/// One run of an operation under a fetch policy (`NormalizedCache.execute`), through
/// its `FetchBehavior`:
///
/// 1. When the behaviour reads the cache first, it does; a result that needs no fetch
///    is the answer, and a usable one (complete, or stale within `maxStale`) is handed
///    on before the fetch.
/// 2. The fetch: the reply's body is normalized, written (unless the behaviour or a
///    `no-store` reply says not to) and read back in the same write transaction, so the
///    answer is exactly the user's selection; when not written, the transaction is
///    dropped after the read.
/// 3. When the fetch fails (`.fetch`), a usable cached result — the one read before,
///    or for `networkFirst` one read now — is the answer with the error beside it;
///    without one the call fails. A reply that cannot be written fails the call as
///    the write would (nothing is written).
///
/// Every result goes to `deliver` as it comes; the last one is also returned.
struct Execution {
    let cache: NormalizedCache
    let operation: PreparedOperation
    let variables: UnsafeRawBufferPointer
    let options: ExecuteOptions

    /// Runs the policy, asking `fetch` for the network's answer and handing each result
    /// to `deliver`; returns the last result.
    func run(fetch: (FetchRequest) throws(NormCacheError) -> FetchReply,
             deliver: (ExecutionResult) -> Void) throws(NormCacheError) -> ExecutionResult {
        let rootKey = try NormalizedCache.rootKey(of: operation)
        let isMutation: Bool
        switch operation.root {
        case .operation(.subscription):
            throw NormCacheError(.invalidArgument, "'\(operation.name ?? "the subscription")' is a subscription: execute runs queries and mutations")
        case .operation(let kind): isMutation = kind == .mutation
        case .fragment: isMutation = false
        }
        let behavior = FetchBehavior(options.policy, isMutation: isMutation)
        var cached: ExecutionResult?
        if behavior.cacheRead == .first {
            let result = try cacheResult(rootKey)
            guard behavior.fetches(after: result.read.status) else {
                deliver(result)
                return result
            }
            if result.read.status != .miss {
                deliver(result)
                cached = result
            }
        }
        var last: ExecutionResult
        do {
            last = try networkResult(rootKey, writing: behavior.writes, fetch: fetch)
        } catch where error.code == .fetch {
            if cached == nil, behavior.cacheRead == .onNetworkFailure {
                let result = try cacheResult(rootKey)
                if result.read.status != .miss { cached = result }
            }
            guard let fallback = cached else { throw error }
            last = fallback
            last.fetchError = error.message
        }
        deliver(last)
        return last
    }

    /// The cache's answer, stale data allowed within `maxStale`, with its times.
    private func cacheResult(_ rootKey: String) throws(NormCacheError) -> ExecutionResult {
        let read = try cache.read(operation, variables: variables,
                                  options: ReadOptions(maxStale: options.maxStale, reportingFreshness: true))
        return ExecutionResult(source: .cache, read: read)
    }

    /// Fetches, writes (when `writing` and the reply allows it) and reads back.
    private func networkResult(_ rootKey: String, writing: Bool,
                               fetch: (FetchRequest) throws(NormCacheError) -> FetchReply) throws(NormCacheError) -> ExecutionResult {
        let request = FetchRequest(document: operation.document, operationName: operation.name,
                                   variables: variables.isEmpty ? Array("{}".utf8) : Array(variables))
        let reply = try fetch(request)
        let now = try cache.clock.now()
        let expiry = try reply.headers.expiry(now: now)
        let (context, freshness) = try cache.readContext(operation, variables: variables,
                                                         options: ReadOptions(reportingFreshness: true, ignoringFreshness: true))
        return try reply.body.withBytes { (body) throws(NormCacheError) -> ExecutionResult in
            let response = try JSONDocument(scanning: body)
            let errors = try ResponseEnvelope.errors(of: response)
            if let errors, options.errorPolicy == .none {
                throw NormCacheError(.graphQL, "the response carries GraphQL errors (\(ResponseEnvelope.summary(of: errors, in: response))); "
                                     + "nothing was written (error policy none)")
            }
            var metadata = FieldMetadata(writtenAt: now)
            var committing = writing
            switch expiry {
            case .noStore: committing = false
            case .at(let time): metadata.expiresAt = time
            }
            let writer = Writer(store: cache.store, encoder: RecordEncoder(metadata: metadata))
            var batch = try NormalizedCache.records(of: response, operation: operation, rootKey: rootKey, context: context)
            if case .operation(.mutation) = operation.root, !operation.keyRules.storesMutationRoot {
                // The mutation's root is not kept: write what is, then read the data back
                // from a dropped transaction that holds the root too.
                if committing { _ = try writer.merge(batch, reportingChanges: false) }
                committing = false
                batch = try NormalizedCache.records(of: response, operation: operation, rootKey: rootKey, context: context,
                                                    keepingMutationRoot: true)
            }
            let read = try cache.store.write(reserving: batch.byteCount, committing: committing) { (txn) throws(NormCacheError) -> ReadResult in
                _ = try writer.merge(batch, in: txn, reportingChanges: false)
                return try cache.read(operation, at: rootKey, in: txn, context: context, freshness: freshness) { (reader) throws(NormCacheError) in
                    NormalizedCache.result(of: reader, partial: true)
                }
            }
            let returned = options.errorPolicy == .all ? errors.map { Array(response.json($0)) } : nil
            return ExecutionResult(source: .network, read: read, errors: returned)
        }
    }
}
