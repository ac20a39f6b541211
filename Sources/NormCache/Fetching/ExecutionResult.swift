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
        var read = ByteBuffer()
        read.appendResult(result.read)
        // The read's members, after its opening brace.
        append(UnsafeRawBufferPointer(rebasing: read.bytes.dropFirst().dropLast()))
        append(#","errors":"#)
        if let errors = result.errors { append(contentsOf: errors) } else { append("null") }
        append(#","fetchError":"#)
        if let message = result.fetchError { appendQuoted(message.utf8) } else { append("null") }
        append(UInt8(ascii: "}"))
    }
}

extension ExecutionResult {
    /// The result as the C interface hands it over (`ByteBuffer.appendJSON(_:)`).
    package var json: [UInt8] {
        var out = ByteBuffer()
        out.appendJSON(self)
        return out.array
    }
}
