import CNormCacheHeader
import NormCache

// The fetching functions of include/normcache.h; documented there.

/// Where a fetch callback's answer goes: what `normcache_fetch_reply*` point to, lent
/// to the callback for its call (`LentPointers`).
struct FetchReplySlot {
    var reply: FetchReply?
    var failure: String?

    var isAnswered: Bool { reply != nil || failure != nil }

    /// The slot `pointer` names, when it is the reply of a fetch callback running on
    /// this thread that has not answered yet.
    static func unanswered(_ pointer: OpaquePointer?) throws(NormCacheError) -> UnsafeMutablePointer<FetchReplySlot> {
        guard let pointer else { throw NormCacheError(.invalidArgument, "reply is NULL") }
        let found = try LentPointers.find(pointer, as: .fetchReply, "reply is not the reply of a fetch callback running on this thread")
        let slot = UnsafeMutableRawPointer(mutating: found).assumingMemoryBound(to: FetchReplySlot.self)
        guard !slot.pointee.isAnswered else { throw NormCacheError(.invalidArgument, "the reply was already answered") }
        return slot
    }
}

/// A C fetch callback and its context, called as `execute`'s fetch.
struct FetchCallback {
    let fetch: normcache_fetch
    let context: UnsafeMutableRawPointer?

    /// Calls the callback with `request`; its answer, or `.fetch` for a failed fetch and
    /// `.callback` for a callback that returned without answering.
    func call(_ request: FetchRequest) throws(NormCacheError) -> FetchReply {
        var slot = FetchReplySlot()
        let (status, reason) = CallbackFailure.run {
            withUnsafeMutablePointer(to: &slot) { slotPointer in
                LentPointers.lend(slotPointer, as: .fetchReply) {
                    withCText(request.document.isEmpty ? nil : request.document) { document, documentLength in
                        withCText(request.operationName) { name, nameLength in
                            withCText(request.key) { key, keyLength in
                                request.variables.withUnsafeBufferPointer { variables in
                                    var cRequest = normcache_fetch_request(
                                        document: document, document_len: documentLength, operation_name: name, operation_name_len: nameLength,
                                        variables_json: variables.isEmpty ? nil : variables.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                        variables_len: variables.count, key: key, key_len: keyLength)
                                    return fetch(context, &cRequest, OpaquePointer(slotPointer))
                                }
                            }
                        }
                    }
                }
            }
        }
        if let failure = slot.failure { throw NormCacheError(.fetch, failure) }
        guard status == NORMCACHE_OK else {
            throw NormCacheError(.fetch, reason ?? "the fetch callback returned \(status) without a message")
        }
        guard let reply = slot.reply else {
            throw NormCacheError(.callback, "the fetch callback returned without an answer: call normcache_fetch_reply_set or normcache_fetch_reply_error")
        }
        return reply
    }
}

/// Runs `body` with `text` as a NUL-terminated C string and its length; NULL and 0 for nil.
private func withCText<R>(_ text: String?, _ body: (UnsafePointer<CChar>?, Int) -> R) -> R {
    guard let text else { return body(nil, 0) }
    return text.withCString { body($0, text.utf8.count) }
}

@c @implementation
public func normcache_fetch_reply_set(_ reply: OpaquePointer?, _ body: UnsafePointer<CChar>?, _ bodyLength: Int,
                                      _ headers: UnsafePointer<normcache_write_options>?) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let slot = try FetchReplySlot.unanswered(reply)
        let bytes = Array(try Boundary.input(body, bodyLength, "body"))
        slot.pointee.reply = FetchReply(body: bytes, headers: try WriteOptions(headers, named: "headers"))
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_fetch_reply_error(_ reply: OpaquePointer?, _ message: UnsafePointer<CChar>?, _ messageLength: Int) -> Int32 {
    Boundary.run { () throws(NormCacheError) in
        let slot = try FetchReplySlot.unanswered(reply)
        let text = String(decoding: try Boundary.input(message, messageLength, "message"), as: UTF8.self)
        slot.pointee.failure = text.isEmpty ? "the fetch failed without a message" : text
        return NORMCACHE_OK
    }
}

@c @implementation
public func normcache_execute(_ cache: OpaquePointer?, _ op: OpaquePointer?,
                              _ variables: UnsafePointer<CChar>?, _ variablesLength: Int,
                              _ options: UnsafePointer<normcache_execute_options>?,
                              _ fetch: normcache_fetch?, _ fetchContext: UnsafeMutableRawPointer?,
                              _ onResult: normcache_result_callback?, _ resultContext: UnsafeMutableRawPointer?,
                              _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                              _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningExecution(cache, outJSON, outLength, options, fetch, fetchContext, onResult, resultContext) { (open, executeOptions, fetch, deliver) throws(NormCacheError) in
        try open.execute(operations.object(op), variables: Boundary.input(variables, variablesLength, "variables_json"),
                         options: executeOptions, fetch: fetch, onResult: deliver)
    }
}

@c @implementation
public func normcache_execute_document(_ cache: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ keyLength: Int,
                                       _ options: UnsafePointer<normcache_execute_options>?,
                                       _ fetch: normcache_fetch?, _ fetchContext: UnsafeMutableRawPointer?,
                                       _ onResult: normcache_result_callback?, _ resultContext: UnsafeMutableRawPointer?,
                                       _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                       _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Boundary.returningExecution(cache, outJSON, outLength, options, fetch, fetchContext, onResult, resultContext) { (open, executeOptions, fetch, deliver) throws(NormCacheError) in
        try open.executeDocument(Boundary.text(key, keyLength, "key"), options: executeOptions, fetch: fetch, onResult: deliver)
    }
}

extension Boundary {
    /// Runs the body of `normcache_execute*`: checks the options and outputs, turns the
    /// C callbacks into the closures `body` hands to `execute`, and hands the last
    /// result to the caller with its status.
    static func returningExecution(_ cache: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
                                   _ options: UnsafePointer<normcache_execute_options>?,
                                   _ fetch: normcache_fetch?, _ fetchContext: UnsafeMutableRawPointer?,
                                   _ onResult: normcache_result_callback?, _ resultContext: UnsafeMutableRawPointer?,
                                   _ body: (NormalizedCache, ExecuteOptions, (FetchRequest) throws(NormCacheError) -> FetchReply,
                                            @escaping (ExecutionResult) -> Void) throws(NormCacheError) -> ExecutionResult) -> Int32 {
        clear(outJSON, outLength)
        return run { () throws(NormCacheError) in
            try allow(outJSON, outLength, "out_json")
            var executeOptions = try ExecuteOptions(options)
            executeOptions.rendersJSON = true
            let open = try caches.object(cache)
            let callback = fetch.map { FetchCallback(fetch: $0, context: fetchContext) }
            let result = try body(open, executeOptions, { (request) throws(NormCacheError) -> FetchReply in
                guard let callback else {
                    throw NormCacheError(.invalidArgument, "fetch is NULL, but the call goes to the network")
                }
                return try callback.call(request)
            }, { result in
                guard let onResult else { return }
                // A result the library cannot render (out of memory) is not delivered.
                _ = try? result.withJSON { (json) throws(NormCacheError) in
                    onResult(resultContext, status(result.read.status), json.baseAddress?.assumingMemoryBound(to: CChar.self), json.count)
                }
            })
            if let outJSON, let outLength {
                let block = try result.jsonBlock()
                outJSON.pointee = block.block.assumingMemoryBound(to: CChar.self)
                outLength.pointee = block.count
            }
            return status(result.read.status)
        }
    }
}

extension ExecuteOptions {
    /// The options of `normcache_execute` (NULL: the defaults).
    init(_ options: UnsafePointer<normcache_execute_options>?) throws(NormCacheError) {
        self.init()
        guard let options else { return }
        try Boundary.checkSize(options.pointee.size, of: normcache_execute_options.self, "options")
        let given = options.pointee
        let policies = FetchPolicy.allCases
        guard given.policy >= 0, Int(given.policy) < policies.count else {
            throw NormCacheError(.invalidArgument, "options->policy \(given.policy) is not a normcache_policy (0 to \(policies.count - 1))")
        }
        let errorPolicies = ErrorPolicy.allCases
        guard given.error_policy >= 0, Int(given.error_policy) < errorPolicies.count else {
            throw NormCacheError(.invalidArgument, "options->error_policy \(given.error_policy) is not a normcache_error_policy (0 to \(errorPolicies.count - 1))")
        }
        guard given.max_stale >= -1 else {
            throw NormCacheError(.invalidArgument, "options->max_stale is \(given.max_stale): seconds, or -1 for none")
        }
        self.init(policy: policies[Int(given.policy)], maxStale: given.max_stale == -1 ? nil : UInt64(given.max_stale),
                  errorPolicy: errorPolicies[Int(given.error_policy)])
    }
}
