/// The records an encoded value refers to.
extension FieldValue {
    /// The key of the reference at `reader` (its bytes, in the reader's buffer), reading
    /// past it; nil when the value there is not a reference with a non-empty key (the
    /// reader's offset is then unspecified).
    @inline(__always)
    static func referenceKey(_ reader: inout ByteReader) -> UnsafeRawBufferPointer? {
        guard reader.readByte() == Tag.reference.rawValue, let length = reader.readLength(),
              let key = reader.readBytes(length), !key.isEmpty else { return nil }
        return key
    }

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
