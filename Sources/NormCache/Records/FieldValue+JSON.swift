extension FieldValue {
    /// What writing an encoded value as JSON came to.
    enum JSONOutcome {
        /// The value is written.
        case written
        /// The value is or holds a reference, which `appendJSON` was told to refuse;
        /// what it wrote before the reference is still in the output.
        case reference
        /// The bytes are not a well-formed value (a damaged record); the output is partial.
        case damaged
    }

    /// Appends the compact JSON text of one encoded value, read from `reader`, to
    /// `out`. References come out as `{"$reference":"<key>"}`, or, when
    /// `refusingReferences`, stop the writing at the first one.
    static func appendJSON(from reader: inout ByteReader, to out: inout ByteBuffer, refusingReferences: Bool = false,
                           depth: Int = 0) -> JSONOutcome {
        guard depth <= maxDepth, let tagByte = reader.readByte(), let tag = Tag(rawValue: tagByte) else { return .damaged }
        switch tag {
        case .null: out.append("null")
        case .false: out.append("false")
        case .true: out.append("true")
        case .number:
            guard let length = reader.readLength(), let text = reader.readBytes(length), !text.isEmpty else { return .damaged }
            out.append(text)
        case .string:
            guard let length = reader.readLength(), let text = reader.readBytes(length) else { return .damaged }
            out.appendQuoted(text)
        case .reference:
            guard let length = reader.readLength(), let key = reader.readBytes(length), !key.isEmpty else { return .damaged }
            guard !refusingReferences else { return .reference }
            out.append(#"{"$reference":"#)
            out.appendQuoted(key)
            out.append(UInt8(ascii: "}"))
        case .list, .object:
            guard let count = reader.readVarint(), let bodyLength = reader.readUInt32(),
                  let body = reader.readBytes(Int(bodyLength)) else { return .damaged }
            var inner = ByteReader(body)
            out.append(UInt8(ascii: tag == .list ? "[" : "{"))
            for index in 0..<count {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if tag == .object {
                    guard let keyLength = inner.readLength(), let key = inner.readBytes(keyLength) else { return .damaged }
                    out.appendQuoted(key)
                    out.append(UInt8(ascii: ":"))
                }
                let outcome = appendJSON(from: &inner, to: &out, refusingReferences: refusingReferences, depth: depth + 1)
                guard case .written = outcome else { return outcome }
            }
            guard inner.isAtEnd else { return .damaged }
            out.append(UInt8(ascii: tag == .list ? "]" : "}"))
        }
        return .written
    }

    /// Whether `reader` holds one well-formed encoded value; reads it.
    static func skip(_ reader: inout ByteReader) -> Bool {
        var discarded = ByteBuffer()
        if case .written = appendJSON(from: &reader, to: &discarded) { return true }
        return false
    }
}
