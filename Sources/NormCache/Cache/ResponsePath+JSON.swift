extension ByteBuffer {
    /// Appends the result of a read that missed, as the C interface hands it over:
    /// `{"data":<partial data or null>,"missing":[paths]}`, each path a JSON array of
    /// response keys and list indexes.
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
