extension FieldValue {
    /// Appends the compact JSON text of one encoded value, read from `reader`, to
    /// `out`. References come out as `{"$reference":"<key>"}`. Returns false when the
    /// bytes are not a well-formed value (a damaged record); `out` is then partial.
    static func appendJSON(from reader: inout ByteReader, to out: inout [UInt8], depth: Int = 0) -> Bool {
        guard depth <= maxDepth, let tagByte = reader.readByte(), let tag = Tag(rawValue: tagByte) else { return false }
        switch tag {
        case .null: out.append(contentsOf: "null".utf8)
        case .false: out.append(contentsOf: "false".utf8)
        case .true: out.append(contentsOf: "true".utf8)
        case .number:
            guard let length = reader.readLength(), let text = reader.readBytes(length), !text.isEmpty else { return false }
            out.append(contentsOf: text)
        case .string:
            guard let length = reader.readLength(), let text = reader.readBytes(length) else { return false }
            JSONString.appendQuoted(text, to: &out)
        case .reference:
            guard let length = reader.readLength(), let key = reader.readBytes(length), !key.isEmpty else { return false }
            out.append(contentsOf: #"{"$reference":"#.utf8)
            JSONString.appendQuoted(key, to: &out)
            out.append(UInt8(ascii: "}"))
        case .list, .object:
            guard let count = reader.readVarint(), let bodyLength = reader.readUInt32(),
                  let body = reader.readBytes(Int(bodyLength)) else { return false }
            var inner = ByteReader(body)
            out.append(UInt8(ascii: tag == .list ? "[" : "{"))
            for index in 0..<count {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if tag == .object {
                    guard let keyLength = inner.readLength(), let key = inner.readBytes(keyLength) else { return false }
                    JSONString.appendQuoted(key, to: &out)
                    out.append(UInt8(ascii: ":"))
                }
                guard appendJSON(from: &inner, to: &out, depth: depth + 1) else { return false }
            }
            guard inner.isAtEnd else { return false }
            out.append(UInt8(ascii: tag == .list ? "]" : "}"))
        }
        return true
    }

    /// Whether the encoded value read from `reader` is or holds a reference; reads the
    /// value (false when its bytes are not well formed).
    static func containsReference(_ reader: inout ByteReader, depth: Int = 0) -> Bool {
        guard depth <= maxDepth, let tagByte = reader.readByte(), let tag = Tag(rawValue: tagByte) else { return false }
        switch tag {
        case .reference: return true
        case .list, .object:
            guard let count = reader.readVarint(), let bodyLength = reader.readUInt32(),
                  let body = reader.readBytes(Int(bodyLength)) else { return false }
            var inner = ByteReader(body)
            for _ in 0..<count {
                // A count beyond the body is damage; stop at its end, whatever the count says.
                guard !inner.isAtEnd else { return false }
                if tag == .object {
                    guard let keyLength = inner.readLength(), inner.readBytes(keyLength) != nil else { return false }
                }
                if containsReference(&inner, depth: depth + 1) { return true }
            }
            return false
        case .number, .string:
            if let length = reader.readLength() { _ = reader.readBytes(length) }
            return false
        case .null, .false, .true:
            return false
        }
    }
}
