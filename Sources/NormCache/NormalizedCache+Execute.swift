/// Running an operation the way a client does: the cache and the network under a fetch
/// policy (see `FetchPolicy`, `Execution`).
extension NormalizedCache {
    /// Runs `operation` (a query or a mutation) with `variables` under `options`:
    /// reads the cache and calls `fetch` (with the network document, the operation name
    /// and the variables) as the policy says, writes the reply and returns the last
    /// result; `onResult`, when given, gets every result as it comes (a cached one
    /// before the network's, for `cacheAndNetwork` and `staleWhileRevalidate`).
    ///
    /// `fetch` throws `.fetch` when the network fails (the policy may then fall back to
    /// the cache); any other error it throws fails the call. It runs outside every lock
    /// and transaction, so it may use the cache. A reply that is not a GraphQL response
    /// fails the call as `write` would, and nothing is written; a reply with GraphQL
    /// `errors` under the error policy `none` fails with `.graphQL`. Mutations always
    /// go to the network; subscriptions and fragments are refused (`.invalidArgument`).
    public func execute(_ operation: PreparedOperation, variables: UnsafeRawBufferPointer, options: ExecuteOptions = ExecuteOptions(),
                        fetch: (FetchRequest) throws(NormCacheError) -> FetchReply,
                        onResult: ((ExecutionResult) -> Void)? = nil) throws(NormCacheError) -> ExecutionResult {
        try interruptible { () throws(NormCacheError) in
            let target = try OperationTarget(cache: self, operation: operation, variables: variables, errorPolicy: options.errorPolicy)
            return try Execution(target: target, options: options).run(fetch: fetch, deliver: { onResult?($0) })
        }
    }

    /// `execute` with JSON variables text.
    public func execute(_ operation: PreparedOperation, variables: String = "", options: ExecuteOptions = ExecuteOptions(),
                        fetch: (FetchRequest) throws(NormCacheError) -> FetchReply,
                        onResult: ((ExecutionResult) -> Void)? = nil) throws(NormCacheError) -> ExecutionResult {
        try variables.withUTF8Bytes { (bytes) throws(NormCacheError) in
            try execute(operation, variables: bytes, options: options, fetch: fetch, onResult: onResult)
        }
    }
}
