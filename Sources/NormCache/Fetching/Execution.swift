/// What `Execution` runs a policy for: a GraphQL operation (`OperationTarget`) or a
/// plain JSON document (`DocumentTarget`). Each answers from the cache and writes what
/// the network answers its own way; the policy is run once for both.
protocol ExecutionTarget {
    /// Whether the target always goes to the network (a mutation).
    var isMutation: Bool { get }
    /// What the fetch is asked.
    var request: FetchRequest { get }
    /// The cache's answer, stale data allowed within `maxStale`, with its times; when
    /// `rendering`, rendered for the C interface (`RenderedResult`) if the target can.
    func cacheResult(maxStale: UInt64?, rendering: Bool) throws(NormCacheError) -> ExecutionResult
    /// The network's answer `reply` as the cache holds it: written when `writing` (and
    /// the reply allows it), else read back from a dropped transaction.
    func networkResult(_ reply: FetchReply, writing: Bool) throws(NormCacheError) -> ExecutionResult
}

/// One run of a fetch policy over a target (`NormalizedCache.execute`), through its
/// `FetchBehavior`:
///
/// 1. When the behaviour reads the cache first, it does; a result that needs no fetch
///    is the answer, and a usable one (complete, or stale within `maxStale`) is handed
///    on before the fetch.
/// 2. The fetch; the target writes the reply (unless the behaviour or a `no-store`
///    reply says not to) and reads it back.
/// 3. When the fetch fails (`.fetch`), a usable cached result — the one read before,
///    or for `networkFirst` one read now — is the answer with the error beside it;
///    without one the call fails. A reply that cannot be written fails the call as
///    the write would (nothing is written).
///
/// Every result goes to `deliver` as it comes; the last one is also returned.
struct Execution<Target: ExecutionTarget> {
    let target: Target
    let options: ExecuteOptions

    /// Runs the policy, asking `fetch` for the network's answer and handing each result
    /// to `deliver`; returns the last result.
    func run(fetch: (FetchRequest) throws(NormCacheError) -> FetchReply,
             deliver: (ExecutionResult) -> Void) throws(NormCacheError) -> ExecutionResult {
        let behavior = FetchBehavior(options.policy, isMutation: target.isMutation)
        var cached: ExecutionResult?
        if behavior.cacheRead == .first {
            let result = try target.cacheResult(maxStale: options.maxStale, rendering: options.rendersJSON)
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
            last = try target.networkResult(fetch(target.request), writing: behavior.writes)
        } catch {
            guard error.code == .fetch else { throw error }
            if cached == nil, behavior.cacheRead == .onNetworkFailure {
                let result = try target.cacheResult(maxStale: options.maxStale, rendering: options.rendersJSON)
                if result.read.status != .miss { cached = result }
            }
            guard let fallback = cached else { throw error }
            last = fallback
            last.fetchError = error.message
        }
        deliver(last)
        return last
    }
}

/// A GraphQL operation as an execution target: the cache read is `read`; the reply is
/// normalized, written and read back in the same write transaction, so the answer is
/// exactly the user's selection (dropped after the read when not written; a
/// mutation's root, which is not stored, is read back from a dropped transaction).
struct OperationTarget: ExecutionTarget {
    let cache: NormalizedCache
    let operation: PreparedOperation
    let variables: UnsafeRawBufferPointer
    let errorPolicy: ErrorPolicy
    let rootKey: String
    let isMutation: Bool

    /// The target of `operation` (a query or a mutation) with `variables`.
    init(cache: NormalizedCache, operation: PreparedOperation, variables: UnsafeRawBufferPointer,
         errorPolicy: ErrorPolicy) throws(NormCacheError) {
        rootKey = try NormalizedCache.rootKey(of: operation)
        switch operation.root {
        case .operation(.subscription):
            throw NormCacheError(.invalidArgument, "'\(operation.name ?? "the subscription")' is a subscription: execute runs queries and mutations")
        case .operation(let kind): isMutation = kind == .mutation
        case .fragment: isMutation = false
        }
        self.cache = cache
        self.operation = operation
        self.variables = variables
        self.errorPolicy = errorPolicy
    }

    var request: FetchRequest {
        FetchRequest(document: operation.document, operationName: operation.name,
                     variables: variables.isEmpty ? Array("{}".utf8) : Array(variables), key: nil)
    }

    func cacheResult(maxStale: UInt64?, rendering: Bool) throws(NormCacheError) -> ExecutionResult {
        let options = ReadOptions(maxStale: maxStale, reportingFreshness: true)
        guard rendering else { return ExecutionResult(source: .cache, read: try cache.read(operation, variables: variables, options: options)) }
        let (context, freshness) = try cache.readContext(operation, variables: variables, options: options)
        defer { operation.finished(with: context) }
        return try cache.store.read { (txn) throws(NormCacheError) -> ExecutionResult in
            try cache.read(operation, at: rootKey, in: txn, context: context, freshness: freshness, prefix: RenderedResult.prefix) {
                (reader) throws(NormCacheError) -> ExecutionResult in
                let status = NormalizedCache.status(of: reader)
                if status == .miss {
                    reader.out.truncate(to: RenderedResult.prefix.utf8CodeUnitCount)
                    reader.out.append("null")
                }
                let oldest = reader.reportedOldestWrittenAt
                let earliest = reader.reportedEarliestExpiry
                reader.out.appendResultMembers(afterData: reader.missing, stale: reader.stale, oldestWrittenAt: oldest, earliestExpiry: earliest)
                try reader.out.check(while: "writing the result of execute")
                let read = ReadResult(status: status, data: nil, missing: reader.missing, stale: reader.stale,
                                      oldestWrittenAt: oldest, earliestExpiry: earliest)
                var result = ExecutionResult(source: .cache, read: read)
                result.rendered = RenderedResult(reader.out.takeAll())
                return result
            }
        }
    }

    func networkResult(_ reply: FetchReply, writing: Bool) throws(NormCacheError) -> ExecutionResult {
        let now = try cache.clock.now()
        let expiry = try reply.headers.expiry(now: now)
        let (context, freshness) = try cache.readContext(operation, variables: variables,
                                                         options: ReadOptions(reportingFreshness: true, ignoringFreshness: true), now: now)
        defer { operation.finished(with: context) }
        return try reply.body.withBytes { (body) throws(NormCacheError) -> ExecutionResult in
            let response = try JSONDocument(scanning: body)
            let errors = try ResponseEnvelope.errors(of: response)
            if let errors, errorPolicy == .none {
                throw NormCacheError(.graphQL, "the response carries GraphQL errors (\(ResponseEnvelope.summary(of: errors, in: response))); "
                                     + "nothing was written (error policy none)")
            }
            let returned = errorPolicy == .all ? errors.map { Array(response.json($0)) } : nil
            guard try ResponseEnvelope.data(of: response, rootPlan: operation.plan) != nil else {
                // No data ("data": null beside errors): nothing to write, and no data to return.
                let read = ReadResult(status: .miss, data: nil, missing: [FieldReport(path: [], reason: .absent, record: rootKey, field: nil)])
                return ExecutionResult(source: .network, read: read, errors: returned)
            }
            var metadata = FieldMetadata(writtenAt: now)
            var committing = writing
            switch expiry {
            case .noStore: committing = false
            case .at(let time): metadata.expiresAt = time
            }
            let writer = Writer(store: cache.store, encoder: RecordEncoder(metadata: metadata))
            let strictKeys = reply.headers.strictKeys
            var batch = try NormalizedCache.records(of: response, operation: operation, rootKey: rootKey, context: context,
                                                    strictKeys: strictKeys)
            if case .operation(.mutation) = operation.root, !operation.keyRules.storesMutationRoot {
                // The mutation's root is not kept: write what is, then read the data back
                // from a dropped transaction that holds the root too.
                if committing { _ = try writer.merge(batch, reportingChanges: false) }
                committing = false
                batch = try NormalizedCache.records(of: response, operation: operation, rootKey: rootKey, context: context,
                                                    keepingMutationRoot: true, strictKeys: strictKeys)
            }
            let read = try cache.store.write(reserving: batch.byteCount, committing: committing) { (txn) throws(NormCacheError) -> ReadResult in
                _ = try writer.merge(batch, in: txn, reportingChanges: false)
                return try cache.read(operation, at: rootKey, in: txn, context: context, freshness: freshness) { (reader) throws(NormCacheError) in
                    NormalizedCache.result(of: reader, partial: true)
                }
            }
            return ExecutionResult(source: .network, read: read, errors: returned)
        }
    }
}
