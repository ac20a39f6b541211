/// One result of `execute`: the read of the cache, or the network's answer as the cache
/// holds it (always the user's selection: the fields the network document added for
/// the cache are left out).
public struct ExecutionResult: Equatable, Sendable {
    /// Where the data came from.
    public enum Source: String, Equatable, Sendable {
        case cache
        case network
    }

    /// Where the data came from.
    public var source: Source
    /// The read: its status, data, missing and stale fields, and times. A network
    /// result counts every field fresh (it was just written, or, with `noStore` or a
    /// `no-store` reply, read back before being dropped).
    public var read: ReadResult
    /// The response's GraphQL `errors` (a JSON array), with the error policy `all`.
    public var errors: [UInt8]?
    /// Why the fetch failed, when cached data stands in for the network's.
    public var fetchError: String?
    /// For the C interface, a cache hit rendered in place (`read.data` is then nil).
    var rendered: RenderedResult?

    /// A result of every part.
    public init(source: Source, read: ReadResult, errors: [UInt8]? = nil, fetchError: String? = nil) {
        self.source = source
        self.read = read
        self.errors = errors
        self.fetchError = fetchError
    }
}

extension ByteBuffer {
    /// Appends a result of `execute` as the C interface hands it over:
    /// `{"source":"cache","data":...,"missing":[...],"stale":[...],"errors":[...]|null,
    /// "fetchError":"..."|null,"oldestWrittenAt":n|null,"earliestExpiry":n|null}`.
    mutating func appendJSON(_ result: ExecutionResult) {
        append(#"{"source":"#)
        appendQuoted(result.source.rawValue.utf8)
        append(UInt8(ascii: ","))
        appendResultMembers(result.read)
        appendTail(of: result)
    }

    /// The closing members of a result of `execute`: `errors`, `fetchError` and the brace.
    mutating func appendTail(of result: ExecutionResult) {
        append(#","errors":"#)
        if let errors = result.errors { append(contentsOf: errors) } else { append("null") }
        append(#","fetchError":"#)
        if let message = result.fetchError { appendQuoted(message.utf8) } else { append("null") }
        append(UInt8(ascii: "}"))
    }
}

extension ExecutionResult {
    /// Runs `body` with the result as the C interface hands it over
    /// (`ByteBuffer.appendJSON(_:)`), borrowed for the call.
    package func withJSON<R>(_ body: (UnsafeRawBufferPointer) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        if let rendered { return try rendered.withJSON(tail: { $0.appendTail(of: self) }, body) }
        var out = ByteBuffer(capacity: (read.data?.count ?? 0) + 256)
        out.appendJSON(self)
        try out.check(while: "writing the result of execute")
        return try body(out.bytes)
    }

    /// The result as the C interface hands it over: one malloc'd, NUL-terminated block
    /// that the caller releases with `free`.
    package func jsonBlock() throws(NormCacheError) -> (block: UnsafeMutableRawPointer, count: Int) {
        if let rendered { return try rendered.takeBlock(tail: { $0.appendTail(of: self) }) }
        var out = ByteBuffer(capacity: (read.data?.count ?? 0) + 256)
        out.appendJSON(self)
        let block = try out.takeBlock(while: "writing the result of execute")
        return (block.start, block.count)
    }
}
