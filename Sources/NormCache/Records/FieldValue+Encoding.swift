extension FieldValue {
    /// Appends the binary form of the JSON value at `index` of `document` to `out`.
    ///
    /// An object whose only member is `"$reference"` with a non-empty string becomes a
    /// reference; any other object that has a `"$reference"` member is an error.
    /// `context` names the field for error messages.
    static func encode(_ document: JSONDocument, _ index: Int, into out: inout ByteBuffer,
                       context: @autoclosure () -> String) throws(NormCacheError) {
        let token = document.tokens[index]
        switch token.kind {
        case .null, .false, .true: _ = encodeLiteral(token, into: &out)
        case .number:
            out.appendTagged(Tag.number.rawValue, document.rawText(of: token))
        case .string:
            if token.hasEscapes {
                document.stringBytes(index).withUnsafeBytes { out.appendTagged(Tag.string.rawValue, $0) }
            } else {
                out.appendTagged(Tag.string.rawValue, document.rawText(of: token))
            }
        case .array:
            let bodyStart = beginContainer(.list, count: token.length, in: &out)
            var element = index + 1
            for _ in 0..<token.length {
                try encode(document, element, into: &out, context: context())
                element = Int(document.tokens[element].end)
            }
            try endContainer(bodyStart: bodyStart, in: &out, context: context())
        case .object:
            if try appendReference(document, index, into: &out, context: context()) { return }
            let bodyStart = beginContainer(.object, count: token.length, in: &out)
            for member in document.members(ofObject: index) {
                document.stringBytes(member.key).withUnsafeBytes { out.appendLengthPrefixed($0) }
                try encode(document, member.value, into: &out, context: context())
            }
            try endContainer(bodyStart: bodyStart, in: &out, context: context())
        }
    }

    /// Appends the binary form of the value at `index` when it is simple — a number, a
    /// string without escapes, or a list of those, at most `maxListDepth` lists deep (0:
    /// no list, 1: one) — and returns true; returns false, appending nothing, for any
    /// other value (which `encode` takes, with its checks and messages). The encoding is
    /// `encode`'s.
    @inline(__always)
    static func encodeSimple(_ document: JSONDocument, _ index: Int, maxListDepth: Int, into out: inout ByteBuffer) -> Bool {
        let token = document.tokens[index]
        guard token.kind == .array else { return encodeScalar(document, token, into: &out) }
        // Only scalars inside (then the elements are the tokens that follow).
        guard maxListDepth > 0, Int(token.end) == index + 1 + Int(token.length) else { return false }
        let mark = out.count
        let bodyStart = beginContainer(.list, count: token.length, in: &out)
        for element in (index + 1)..<Int(token.end) {
            guard encodeScalar(document, document.tokens[element], into: &out) else {
                out.truncate(to: mark)
                return false
            }
        }
        out.setUInt32(UInt32(truncatingIfNeeded: out.count - bodyStart), at: bodyStart - 4)
        return true
    }

    /// Appends the binary form of a `null`, `true` or `false` token and returns true;
    /// returns false, appending nothing, for any other token. The encoding is `encode`'s.
    @inline(__always)
    static func encodeLiteral(_ token: JSONToken, into out: inout ByteBuffer) -> Bool {
        switch token.kind {
        case .null: out.append(Tag.null.rawValue)
        case .false: out.append(Tag.false.rawValue)
        case .true: out.append(Tag.true.rawValue)
        default: return false
        }
        return true
    }

    /// `encodeSimple` for a number or a string without escapes.
    @inline(__always)
    private static func encodeScalar(_ document: JSONDocument, _ token: JSONToken, into out: inout ByteBuffer) -> Bool {
        switch token.kind {
        case .number: out.appendTagged(Tag.number.rawValue, document.rawText(of: token))
        case .string where !token.hasEscapes: out.appendTagged(Tag.string.rawValue, document.rawText(of: token))
        default: return false
        }
        return true
    }

    /// Appends the reference of a `{"$reference": "<key>"}` object and returns true;
    /// returns false, appending nothing, for an object without a `"$reference"` member,
    /// and throws for any other use of `"$reference"`.
    private static func appendReference(_ document: JSONDocument, _ index: Int, into out: inout ByteBuffer,
                                        context: @autoclosure () -> String) throws(NormCacheError) -> Bool {
        for member in document.members(ofObject: index) where document.string(member.key, equals: "$reference") {
            let valueToken = document.tokens[member.value]
            guard document.tokens[index].length == 1, valueToken.kind == .string else {
                throw NormCacheError(.json, "JSON error at byte \(document.tokens[index].offset): malformed reference in \(context()): a reference is an object whose only member is \"$reference\" with a string value")
            }
            guard valueToken.length > 0 else {
                throw NormCacheError(.json, "JSON error at byte \(valueToken.offset): empty record key in a reference in \(context())")
            }
            out.append(Tag.reference.rawValue)
            document.withStringBytes(member.value) { out.appendLengthPrefixed($0) }
            return true
        }
        return false
    }

    /// Starts a list or object: its tag, element count and a body length to fill in by
    /// `endContainer`; returns where the body starts.
    @inline(__always)
    static func beginContainer(_ tag: Tag, count: UInt32, in out: inout ByteBuffer) -> Int {
        out.append(tag.rawValue)
        out.appendVarint(UInt64(count))
        out.appendUInt32(0)
        return out.count
    }

    /// Fills in the body length of the container whose body starts at `bodyStart`.
    @inline(__always)
    static func endContainer(bodyStart: Int, in out: inout ByteBuffer,
                             context: @autoclosure () -> String) throws(NormCacheError) {
        guard let length = UInt32(exactly: out.count - bodyStart) else {
            throw NormCacheError(.json, "a list or object in \(context()) encodes to more than 4 GiB")
        }
        out.setUInt32(length, at: bodyStart - 4)
    }
}

extension ByteBuffer {
    /// Appends a length-prefixed byte string (varint length, bytes).
    @inline(__always)
    mutating func appendLengthPrefixed(_ bytes: UnsafeRawBufferPointer) {
        appendVarint(UInt64(bytes.count))
        append(bytes)
    }

    /// Appends a tag byte and a length-prefixed byte string (a number or a string
    /// value), with one reservation.
    @inline(__always)
    mutating func appendTagged(_ tag: UInt8, _ bytes: UnsafeRawBufferPointer) {
        let length = bytes.count
        guard let out = reserve(length &+ 11) else { return }
        out.storeBytes(of: tag, as: UInt8.self)
        var header = 2
        if length < 0x80 {
            out.storeBytes(of: UInt8(truncatingIfNeeded: length), toByteOffset: 1, as: UInt8.self)
        } else {
            header = 1 &+ Varint.write(UInt64(length), to: out + 1)
        }
        advance(by: header)
        append(bytes.baseAddress, count: length)
    }

    /// Makes the bytes from `start` on a tagged length-prefixed string, as
    /// `appendTagged` appends one: moves them up past the tag and length it writes in
    /// front of them (for bytes written before their length was known).
    mutating func tagInPlace(_ tag: UInt8, from start: Int) {
        let length = count &- start
        let header = 1 &+ Varint.length(UInt64(length))
        guard reserve(header) != nil, let base = self.start else { return }
        let bytes = base + start
        (bytes + header).copyMemory(from: bytes, byteCount: length)
        bytes.storeBytes(of: tag, as: UInt8.self)
        _ = Varint.write(UInt64(length), to: bytes + 1)
        advance(by: header)
    }
}
