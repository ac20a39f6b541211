/// JSON text written into a `ByteBuffer`.
extension ByteBuffer {
    /// Appends `"contents"`, escaping `"`, `\` and control characters as
    /// `JSONString.appendQuoted` does; every other byte (valid UTF-8 by construction) is
    /// copied as it is. The common case, nothing to escape, takes one reservation and
    /// one pass that checks and copies sixteen bytes at a time.
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

    /// Whether any of the sixteen bytes of `block` needs an escape in a JSON string: a
    /// `"`, a `\` or a control character (one SIMD compare of each kind, SSE2 or NEON).
    @inline(__always)
    static func anyNeedsEscape(_ block: SIMD16<UInt8>) -> Bool {
        anySet((block .== SIMD16(repeating: UInt8(ascii: "\""))) .| (block .== SIMD16(repeating: UInt8(ascii: "\\")))
            .| (block .< SIMD16(repeating: 0x20)))
    }

    /// Whether any lane of `mask` is set: its two halves or'ed (the standard library's
    /// `any` is a generic reduction that a large module calls rather than inlines).
    @inline(__always)
    static func anySet(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let halves = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return halves[0] | halves[1] != 0
    }

    /// The place of the first byte to escape in the sixteen bytes at `start`, which hold
    /// one (`anyNeedsEscape` said so): the lowest mark of their two words.
    @inline(__always)
    static func firstToEscape(inBlockAt start: UnsafeRawPointer) -> Int {
        let low = needsEscape(start.loadUnaligned(as: UInt64.self))
        if low != 0 { return low.trailingZeroBitCount >> 3 }
        return 8 &+ needsEscape(start.loadUnaligned(fromByteOffset: 8, as: UInt64.self)).trailingZeroBitCount >> 3
    }

    /// The length of the longest prefix of `start[0..<length]` that needs no escape in a
    /// JSON string (no `"`, no `\`, no control character), checked sixteen bytes at a
    /// time. With `out` (room for `length` bytes), the prefix is copied there as it is
    /// checked; `out` may then receive a few bytes past the prefix.
    @inline(__always)
    static func plainPrefix(_ start: UnsafeRawPointer, _ length: Int, copyingTo out: UnsafeMutableRawPointer? = nil) -> Int {
        var position = 0
        if length >= 16 {
            while position &+ 16 <= length {
                let block = start.loadUnaligned(fromByteOffset: position, as: SIMD16<UInt8>.self)
                out?.storeBytes(of: block, toByteOffset: position, as: SIMD16<UInt8>.self)
                guard !anyNeedsEscape(block) else { return position &+ firstToEscape(inBlockAt: start + position) }
                position &+= 16
            }
            // The last bytes: one block that overlaps the last (its first bytes are plain).
            guard position < length else { return length }
            let last = length &- 16
            let block = start.loadUnaligned(fromByteOffset: last, as: SIMD16<UInt8>.self)
            out?.storeBytes(of: block, toByteOffset: last, as: SIMD16<UInt8>.self)
            return anyNeedsEscape(block) ? last &+ firstToEscape(inBlockAt: start + last) : length
        }
        // A string shorter than sixteen (ids, names, tags, dates): its bytes gathered into
        // one block or word by overlapping loads, the rest of a word plain, and checked at
        // once; only a string that holds a byte to escape is looked at byte by byte.
        if length >= 8 {
            let head = start.loadUnaligned(as: UInt64.self), tail = start.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
            if !anyNeedsEscape(unsafeBitCast(SIMD2(head, tail), to: SIMD16<UInt8>.self)) {
                out?.storeBytes(of: head, as: UInt64.self)
                out?.storeBytes(of: tail, toByteOffset: length &- 8, as: UInt64.self)
                return length
            }
        } else if length >= 4 {
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
