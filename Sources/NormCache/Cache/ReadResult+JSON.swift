/// A read's result as the C interface hands it over (documented in `normcache.h`).
extension ByteBuffer {
    /// Appends the result of a read that missed, as `normcache_read` gives it:
    /// `{"data":<partial data or null>,"missing":[...]}`.
    mutating func appendMiss(_ missing: [FieldReport], partialData: UnsafeRawBufferPointer?) {
        append(#"{"data":"#)
        if let partialData { append(partialData) } else { append("null") }
        append(#","missing":"#)
        appendJSON(missing)
        append(UInt8(ascii: "}"))
    }

    /// Appends a whole read result, as `normcache_read_ex` gives it:
    /// `{"data":...,"missing":[...],"stale":[...],"oldestWrittenAt":n|null,"earliestExpiry":n|null}`.
    mutating func appendResult(data: UnsafeRawBufferPointer?, missing: [FieldReport], stale: [FieldReport],
                               oldestWrittenAt: UInt64?, earliestExpiry: UInt64?) {
        append(UInt8(ascii: "{"))
        appendResultMembers(data: data, missing: missing, stale: stale, oldestWrittenAt: oldestWrittenAt, earliestExpiry: earliestExpiry)
        append(UInt8(ascii: "}"))
    }

    /// The members of `appendResult`'s object, without its braces.
    mutating func appendResultMembers(data: UnsafeRawBufferPointer?, missing: [FieldReport], stale: [FieldReport],
                                      oldestWrittenAt: UInt64?, earliestExpiry: UInt64?) {
        append(#""data":"#)
        if let data { append(data) } else { append("null") }
        appendResultMembers(afterData: missing, stale: stale, oldestWrittenAt: oldestWrittenAt, earliestExpiry: earliestExpiry)
    }

    /// The members of `appendResult`'s object after its `data`, each with its comma.
    mutating func appendResultMembers(afterData missing: [FieldReport], stale: [FieldReport],
                                      oldestWrittenAt: UInt64?, earliestExpiry: UInt64?) {
        append(#","missing":"#)
        appendJSON(missing)
        append(#","stale":"#)
        appendJSON(stale)
        append(#","oldestWrittenAt":"#)
        appendNumber(oldestWrittenAt)
        append(#","earliestExpiry":"#)
        appendNumber(earliestExpiry)
    }

    /// `appendResult` of a `ReadResult`.
    mutating func appendResult(_ result: ReadResult) {
        append(UInt8(ascii: "{"))
        appendResultMembers(result)
        append(UInt8(ascii: "}"))
    }

    /// `appendResultMembers` of a `ReadResult`, and `"etag"` after them when it has one.
    mutating func appendResultMembers(_ result: ReadResult) {
        if let data = result.data {
            data.withUnsafeBytes { bytes in
                appendResultMembers(data: bytes, missing: result.missing, stale: result.stale, oldestWrittenAt: result.oldestWrittenAt,
                                    earliestExpiry: result.earliestExpiry)
            }
        } else {
            appendResultMembers(data: nil, missing: result.missing, stale: result.stale, oldestWrittenAt: result.oldestWrittenAt,
                                earliestExpiry: result.earliestExpiry)
        }
        if let etag = result.etag {
            append(#","etag":"#)
            appendQuoted(etag.utf8)
        }
    }

    /// Appends the entries of `missing` or `stale` as a JSON array of
    /// `{"path":[...],"reason":"absent","record":"QUERY_ROOT","field":"feed(first:3)"}`
    /// (no `field` for an absent record; `writtenAt` and `expiredAt` for a stale one).
    mutating func appendJSON(_ reports: [FieldReport]) {
        append(UInt8(ascii: "["))
        for (index, report) in reports.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            append(#"{"path":"#)
            appendJSON(report.path)
            append(#","reason":"#)
            appendQuoted(report.reason.rawValue.utf8)
            append(#","record":"#)
            appendQuoted(report.record.utf8)
            if let field = report.field {
                append(#","field":"#)
                appendQuoted(field.utf8)
            }
            if let writtenAt = report.writtenAt {
                append(#","writtenAt":"#)
                appendNumber(writtenAt)
            }
            if let expiredAt = report.expiredAt {
                append(#","expiredAt":"#)
                appendNumber(expiredAt)
            }
            append(UInt8(ascii: "}"))
        }
        append(UInt8(ascii: "]"))
    }

    /// Appends a number, or `null`.
    private mutating func appendNumber(_ value: UInt64?) {
        if let value { append(contentsOf: String(value).utf8) } else { append("null") }
    }

    /// Appends a response path as a JSON array: `["hero","friends",2]`.
    mutating func appendJSON(_ path: [ResponsePathSegment]) {
        append(UInt8(ascii: "["))
        for (index, segment) in path.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            switch segment {
            case .key(let key): appendQuoted(key.utf8)
            case .index(let position): append(contentsOf: String(position).utf8)
            }
        }
        append(UInt8(ascii: "]"))
    }
}

extension ReadResult {
    /// The result as one JSON object, as `normcache_read_ex` gives it
    /// (`ByteBuffer.appendResult`).
    package var json: [UInt8] {
        var out = ByteBuffer(capacity: (data?.count ?? 0) + 128)
        out.appendResult(self)
        return out.array
    }
}
