/// JSON text written into a `ByteBuffer`.
extension ByteBuffer {
    /// Appends `"contents"`, escaping `"`, `\` and control characters as
    /// `JSONString.appendQuoted` does; every other byte (valid UTF-8 by construction) is
    /// copied as it is. The common case, nothing to escape, takes one reservation and
    /// one pass that checks and copies eight bytes at a time.
    @inline(__always)
    mutating func appendQuoted(_ contents: UnsafeRawBufferPointer) {
        let length = contents.count
        guard let out = reserve(length &+ 2) else { return }
        out.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        guard let base = contents.baseAddress else {
            (out + 1).storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
            advance(by: 2)
            return
        }
        let plain = JSONString.plainPrefix(base, length, copyingTo: out + 1)
        guard plain < length else {
            (out + 1 + length).storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
            advance(by: length &+ 2)
            return
        }
        advance(by: plain &+ 1)
        appendEscaped(base + plain, length - plain)
        append(UInt8(ascii: "\""))
    }

    /// Appends `"contents"` for any bytes (names made once, messages).
    mutating func appendQuoted<Bytes: Collection>(_ contents: Bytes) where Bytes.Element == UInt8 {
        let copy = Array(contents)
        copy.withUnsafeBytes { appendQuoted($0) }
    }

    /// Appends string contents from their first byte that needs an escape on.
    private mutating func appendEscaped(_ start: UnsafeRawPointer, _ length: Int) {
        var position = 0
        while position < length {
            let plain = JSONString.plainPrefix(start + position, length - position)
            append(start + position, count: plain)
            position += plain
            guard position < length else { return }
            let byte = start.load(fromByteOffset: position, as: UInt8.self)
            position += 1
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            default:
                let digits: StaticString = "0123456789abcdef"
                append("\\u00")
                append(digits.utf8Start[Int(byte >> 4)])
                append(digits.utf8Start[Int(byte & 15)])
            }
        }
    }
}

extension JSONString {
    /// The bytes of `word` (eight, little-endian) that need an escape in a JSON string,
    /// each marked by its high bit: a `"`, a `\` or a control character. A byte is
    /// marked when it is zero after the xor (a quote or backslash) or below 0x20; bytes
    /// of 0x80 and above never are. Only the lowest mark is exact (a borrow can mark
    /// the byte after a marked one), which is all its callers use.
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
        let special = ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | (word &- ones &* 0x20)
        return special & ~word & highBits
    }

    /// The length of the longest prefix of `start[0..<length]` that needs no escape in a
    /// JSON string (no `"`, no `\`, no control character), checked a word at a time.
    /// With `out` (room for `length` bytes), the prefix is copied there as it is checked;
    /// `out` may then receive a few bytes past the prefix.
    @inline(__always)
    static func plainPrefix(_ start: UnsafeRawPointer, _ length: Int, copyingTo out: UnsafeMutableRawPointer? = nil) -> Int {
        var position = 0
        while position &+ 8 <= length {
            let word = start.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            out?.storeBytes(of: word, toByteOffset: position, as: UInt64.self)
            let flagged = needsEscape(word)
            guard flagged == 0 else { return position &+ flagged.trailingZeroBitCount >> 3 }
            position &+= 8
        }
        // The last bytes of a string of eight or more: one word that overlaps the last.
        if position < length, length >= 8 {
            let last = length &- 8
            let word = start.loadUnaligned(fromByteOffset: last, as: UInt64.self)
            out?.storeBytes(of: word, toByteOffset: last, as: UInt64.self)
            let flagged = needsEscape(word)
            return flagged == 0 ? length : last &+ flagged.trailingZeroBitCount >> 3
        }
        // A string shorter than eight (ids, names, tags): its bytes gathered into one word
        // by overlapping loads, the rest of the word plain, and checked at once; only a
        // string that holds a byte to escape is looked at byte by byte.
        if length >= 4 {
            let head = start.loadUnaligned(as: UInt32.self), tail = start.loadUnaligned(fromByteOffset: length &- 4, as: UInt32.self)
            if needsEscape(UInt64(head) | UInt64(tail) << 32) == 0 {
                out?.storeBytes(of: head, as: UInt32.self)
                out?.storeBytes(of: tail, toByteOffset: length &- 4, as: UInt32.self)
                return length
            }
        } else if length > 0 {
            let first = start.load(as: UInt8.self), middle = start.load(fromByteOffset: length >> 1, as: UInt8.self)
            let last = start.load(fromByteOffset: length &- 1, as: UInt8.self)
            let plainFill: UInt64 = 0x4141_4141_4100_0000  // "A"s above the three bytes
            if needsEscape(UInt64(first) | UInt64(middle) << 8 | UInt64(last) << 16 | plainFill) == 0 {
                out?.storeBytes(of: first, as: UInt8.self)
                out?.storeBytes(of: middle, toByteOffset: length >> 1, as: UInt8.self)
                out?.storeBytes(of: last, toByteOffset: length &- 1, as: UInt8.self)
                return length
            }
        }
        while position < length {
            let byte = start.load(fromByteOffset: position, as: UInt8.self)
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return position }
            out?.storeBytes(of: byte, toByteOffset: position, as: UInt8.self)
            position &+= 1
        }
        return position
    }
}
