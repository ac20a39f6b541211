/// JSON output helpers of the public face, for callers that hand results on as JSON
/// (the C interface).
public enum JSONEncoding {
    /// A compact JSON array of strings: `["Pet:1","Pet:2"]`.
    public static func stringArray(_ strings: [String]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.appendQuoted(string.utf8, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// The result of a read that missed: `{"data":<partial data or null>,"missing":[paths]}`,
    /// each path a JSON array of response keys and list indexes.
    public static func miss(_ missing: [[ResponsePathSegment]], partialData: [UInt8]?) -> [UInt8] {
        var out = ByteBuffer()
        partialData.withBytes { out.appendMiss(missing, partialData: $0) }
        return out.array
    }
}

extension ByteBuffer {
    /// Appends `{"data":<partial data or null>,"missing":[paths]}` (see `JSONEncoding.miss`).
    mutating func appendMiss(_ missing: [[ResponsePathSegment]], partialData: UnsafeRawBufferPointer?) {
        append(#"{"data":"#)
        if let partialData { append(partialData) } else { append("null") }
        append(#","missing":["#)
        for (index, path) in missing.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            appendJSON(path)
        }
        append("]}")
    }
}

extension Optional where Wrapped == [UInt8] {
    /// The bytes of the array, or nil, for the duration of `body`.
    fileprivate func withBytes<R>(_ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let bytes = self else { return body(nil) }
        return bytes.withUnsafeBytes { body($0) }
    }
}
