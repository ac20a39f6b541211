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
}
