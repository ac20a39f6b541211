/// The records an encoded value refers to.
extension FieldValue {
    /// Appends to `keys` a copy of the key of every reference in the encoded value at
    /// `reader` (in order, repeats kept), and reads past it; false when the value is not
    /// well formed.
    static func collectReferences(_ reader: inout ByteReader, into keys: inout [[UInt8]], depth: Int = 0) -> Bool {
        guard depth <= maxDepth, let tagByte = reader.readByte(), let tag = Tag(rawValue: tagByte) else { return false }
        switch tag {
        case .null, .false, .true:
            return true
        case .number, .string, .reference:
            guard let length = reader.readLength(), let bytes = reader.readBytes(length) else { return false }
            if tag == .reference { keys.append(Array(bytes)) }
            return true
        case .list, .object:
            guard let count = reader.readVarint(), let bodyLength = reader.readUInt32(),
                  let body = reader.readBytes(Int(bodyLength)) else { return false }
            var inner = ByteReader(body)
            for _ in 0..<count {
                if tag == .object {
                    guard let nameLength = inner.readLength(), inner.readBytes(nameLength) != nil else { return false }
                }
                guard collectReferences(&inner, into: &keys, depth: depth + 1) else { return false }
            }
            return inner.isAtEnd
        }
    }
}
