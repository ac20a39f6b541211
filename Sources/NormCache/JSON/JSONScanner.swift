import Glibc

/// The single pass that turns JSON bytes into `JSONToken`s; see `JSONDocument`.
///
/// It works on raw pointers: tokens go straight into a malloc'd tape, the open
/// containers and their element counts live on a fixed stack of `maxDepth` entries,
/// and strings are scanned eight bytes at a time. Inside an interruptible call it stops
/// at an interrupt (`InterruptCheck`): at the first ',' between values and then every
/// 256 (every value but the first of each container follows one).
struct JSONScanner: ~Copyable {
    private let bytes: UnsafePointer<UInt8>
    private let count: Int
    private var position = 0
    private var tokens: UnsafeMutablePointer<JSONToken>?
    private var tokenCount = 0
    private var capacity = 0
    /// The containers still open, innermost last: token index, element count, kind.
    private let open: UnsafeMutablePointer<(token: Int, count: UInt32, isObject: Bool)>
    private var depth = 0
    /// Every 256 separators between values, whether the handle whose call scans was
    /// interrupted.
    private var interruptCheck = InterruptCheck()

    /// The most tokens reserved up front (1 GiB of tape); larger documents grow the tape.
    /// The tape comes from the `BlockPool` when it is large. When memory for it cannot be
    /// had the scan fails with `.outOfMemory`.
    private static let reservationLimit = 1 << 26

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(bitPattern: 1).assumedPresent
        count = bytes.count
        open = .allocate(capacity: JSONDocument.maxDepth)
    }

    deinit {
        BlockPool.shared.release(tokens, capacity: capacity * MemoryLayout<JSONToken>.stride)
        open.deallocate()
    }

    /// Scans the whole input as exactly one JSON value surrounded by whitespace.
    mutating func scanDocument() throws(NormCacheError) -> JSONTape {
        // JSON holds at least about 5 bytes a token in practice: reserving that once
        // spares a large document the copies (and the doubled peak) of growing; pages
        // reserved but never written cost no memory. Where the address space is too
        // small for that guess, the tape grows from nothing instead.
        _ = reserve(Swift.min(count / 5 + 16, Self.reservationLimit))
        skipWhitespace()
        // Whether the next value is an object member, whose key comes first: every key is
        // scanned at this one place, so that the key's scan is inlined into the loop.
        var memberNext = false
        values: while true {
            if memberNext { try scanMemberKey() }
            guard position < count else { throw truncated() }
            switch bytes[position] {
            case UInt8(ascii: "\""):
                try scanString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[position] == UInt8(ascii: "{")
                guard depth < JSONDocument.maxDepth else {
                    throw error("JSON nested deeper than \(JSONDocument.maxDepth) levels")
                }
                let index = tokenCount
                try append(JSONToken(kind: isObject ? .object : .array, offset: UInt32(position), length: 0, end: 0))
                position += 1
                skipWhitespace()
                guard position < count else { throw truncated() }
                if bytes[position] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    internalCheck(index < tokenCount, "JSON token \(index) outside 0..<\(tokenCount)")
                    tokens.assumedPresent[index].closeOffset = UInt32(position)
                    tokens.assumedPresent[index].end = UInt32(tokenCount)
                    position += 1
                } else {
                    open[depth] = (index, 1, isObject)
                    depth += 1
                    memberNext = isObject
                    continue values
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try scanNumber()
            case UInt8(ascii: "t"):
                try scanLiteral("true", .true)
            case UInt8(ascii: "f"):
                try scanLiteral("false", .false)
            case UInt8(ascii: "n"):
                try scanLiteral("null", .null)
            default:
                throw error("expected a JSON value")
            }
            // After a value: a separator before the next one, or the end of containers.
            while depth > 0 {
                skipWhitespace()
                guard position < count else { throw truncated() }
                let container = open[depth - 1]
                let byte = bytes[position]
                if byte == UInt8(ascii: ",") {
                    // Here rather than at the head of `values`, whose hot string loop
                    // would reload its constants after each check.
                    try interruptCheck.pass()
                    position += 1
                    skipWhitespace()
                    open[depth - 1].count += 1
                    memberNext = container.isObject
                    continue values
                }
                guard byte == (container.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw error(container.isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element")
                }
                internalCheck(container.token < tokenCount, "JSON token \(container.token) outside 0..<\(tokenCount)")
                let tokens = tokens.assumedPresent
                tokens[container.token].length = container.count
                tokens[container.token].closeOffset = UInt32(position)
                tokens[container.token].end = UInt32(tokenCount)
                position += 1
                depth -= 1
            }
            break
        }
        skipWhitespace()
        guard position == count else { throw error("unexpected text after the JSON value") }
        let tape = JSONTape(taking: tokens.assumedPresent, count: tokenCount, capacity: capacity)
        tokens = nil
        return tape
    }

    @inline(__always)
    private mutating func append(_ token: JSONToken) throws(NormCacheError) {
        if tokenCount == capacity {
            guard capacity < JSONToken.maximumCount else {
                throw error("more than \(JSONToken.maximumCount) JSON values in one document")
            }
            let wanted = Swift.min(Swift.max(capacity * 2, 16), JSONToken.maximumCount)
            guard reserve(wanted) else {
                throw .outOfMemory(allocating: wanted * MemoryLayout<JSONToken>.stride,
                                   while: "scanning JSON (a tape of \(wanted) values, at byte \(position))")
            }
        }
        internalCheck(tokenCount < capacity, "JSON token \(tokenCount) past the tape's \(capacity)")
        tokens.assumedPresent[tokenCount] = token
        tokenCount += 1
    }

    /// Appends a string, number or literal token of `count` bytes at `start`. Offsets and
    /// counts fit their 32 bits unchecked: the input is shorter than 4 GiB
    /// (`JSONDocument`), and `append` keeps the tape under `JSONToken.maximumCount`.
    @inline(__always)
    private mutating func appendScalar(_ kind: JSONToken.Kind, hasEscapes: Bool = false, from start: Int, count: Int) throws(NormCacheError) {
        try append(JSONToken(kind: kind, hasEscapes: hasEscapes, offset: UInt32(truncatingIfNeeded: start),
                             length: UInt32(truncatingIfNeeded: count), end: UInt32(truncatingIfNeeded: tokenCount &+ 1)))
    }

    /// Grows the tape to `wanted` tokens; false (the tape as it was) when memory cannot
    /// be had.
    private mutating func reserve(_ wanted: Int) -> Bool {
        let stride = MemoryLayout<JSONToken>.stride
        guard let (grown, bytes) = BlockPool.shared.reallocate(tokens, used: tokenCount * stride, capacity: capacity * stride,
                                                           to: wanted * stride) else { return false }
        tokens = grown.bindMemory(to: JSONToken.self, capacity: bytes / stride)
        capacity = bytes / stride
        return true
    }

    /// Scans `"key" :` of an object member, leaving the position at its value.
    @inline(__always)
    private mutating func scanMemberKey() throws(NormCacheError) {
        guard position < count else { throw truncated() }
        guard bytes[position] == UInt8(ascii: "\"") else { throw error("expected a string as object key") }
        try scanString()
        skipWhitespace()
        guard position < count else { throw truncated() }
        guard bytes[position] == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
        position += 1
        skipWhitespace()
    }

    private mutating func scanLiteral(_ word: StaticString, _ kind: JSONToken.Kind) throws(NormCacheError) {
        let length = word.utf8CodeUnitCount
        let start = position
        var matched = 0
        while matched < length, start &+ matched < count, bytes[start &+ matched] == word.utf8Start[matched] { matched &+= 1 }
        position = start &+ matched
        guard matched == length else {
            throw position < count ? error("invalid literal (expected '\(word)')") : truncated()
        }
        try appendScalar(kind, from: start, count: length)
    }

    @inline(__always)
    private mutating func scanNumber() throws(NormCacheError) {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < count else { throw truncated() }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            guard try skipDigits() > 0 else { throw error("expected a digit in a number") }
        }
        if position < count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard try skipDigits() > 0 else { throw error("expected a digit after the decimal point") }
        }
        if position < count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard try skipDigits() > 0 else { throw error("expected a digit in the exponent") }
        }
        try appendScalar(.number, from: start, count: position &- start)
    }

    /// Skips ASCII digits and returns how many there were; the end of input after a
    /// number's required digit is reported as truncation.
    @inline(__always)
    private mutating func skipDigits() throws(NormCacheError) -> Int {
        let start = position
        var end = start
        while end < count, bytes[end] &- UInt8(ascii: "0") < 10 { end &+= 1 }
        position = end
        if end == start, end == count { throw truncated() }
        return end &- start
    }

    @inline(__always)
    private mutating func scanString() throws(NormCacheError) {
        let quote = position
        let start = quote &+ 1
        // The cursor is a local, kept in a register through the plain bytes; `position`
        // is brought up to it only for the escapes, UTF-8 sequences and errors that
        // read or move it.
        var cursor = start
        var hasEscapes = false
        while true {
            cursor = Self.plainStringEnd(bytes, count: count, from: cursor)
            guard cursor < count else {
                throw unterminatedString(at: quote)
            }
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "\"") { break }
            if byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") {
                cursor &+= 1
                continue
            }
            position = cursor
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try scanEscape()
            } else if byte < 0x20 {
                throw unescapedControlCharacter(byte)
            } else {
                try scanUTF8Sequence()
            }
            cursor = position
        }
        try appendScalar(.string, hasEscapes: hasEscapes, from: start, count: cursor &- start)
        position = cursor &+ 1
    }

    /// The first byte at or after `start` that is not plainly part of a string, read
    /// eight at a time: a quote, a backslash, a control character or a byte of a
    /// multi-byte sequence, or any byte of the last seven (those take the exact path).
    @inline(__always)
    private static func plainStringEnd(_ bytes: UnsafePointer<UInt8>, count: Int, from start: Int) -> Int {
        var cursor = start
        while cursor &+ 8 <= count {
            let word = UnsafeRawPointer(bytes).loadUnaligned(fromByteOffset: cursor, as: UInt64.self)
            let flagged = JSONString.needsEscape(word) | (word & 0x8080_8080_8080_8080)
            guard flagged == 0 else { return cursor &+ flagged.trailingZeroBitCount >> 3 }
            cursor &+= 8
        }
        return cursor
    }

    private mutating func scanEscape() throws(NormCacheError) {
        guard position + 1 < count else { throw truncated() }
        switch bytes[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 2
        case UInt8(ascii: "u"):
            let unit = try scanUnicodeEscape()
            if unit >= 0xDC00 && unit <= 0xDFFF {
                position -= 6
                throw error("lone low surrogate \\u\(hexUnit(unit)) in a string")
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                let high = position - 6
                guard position + 1 < count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    position = high
                    throw error("high surrogate \\u\(hexUnit(unit)) not followed by a low surrogate")
                }
                let low = try scanUnicodeEscape()
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    position = high
                    throw error("high surrogate \\u\(hexUnit(unit)) not followed by a low surrogate")
                }
            }
        default:
            throw error("invalid escape in a string")
        }
    }

    /// Scans `\uXXXX` at the position and returns the code unit.
    private mutating func scanUnicodeEscape() throws(NormCacheError) -> UInt16 {
        var unit: UInt16 = 0
        for i in 2..<6 {
            guard position + i < count else { throw truncated() }
            guard let digit = JSONString.hexValue(bytes[position + i]) else {
                throw error("invalid \\u escape (expected 4 hex digits)")
            }
            unit = unit << 4 | UInt16(digit)
        }
        position += 6
        return unit
    }

    /// Validates one multi-byte UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF).
    private mutating func scanUTF8Sequence() throws(NormCacheError) {
        let lead = bytes[position]
        let length: Int
        var lowest: UInt8 = 0x80, highest: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowest = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; highest = 0x9F
        case 0xF0: length = 4; lowest = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; highest = 0x8F
        default: throw error("invalid UTF-8 byte 0x\(hexByte(lead))")
        }
        for i in 1..<length {
            guard position + i < count else {
                throw error("invalid UTF-8: sequence cut short by the end of input")
            }
            let byte = bytes[position + i]
            let (low, high) = i == 1 ? (lowest, highest) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= low && byte <= high else {
                throw error("invalid UTF-8 sequence starting with 0x\(hexByte(lead))")
            }
        }
        position += length
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        // Compact JSON has none: one comparison says so.
        guard position < count, bytes[position] <= 0x20 else { return }
        while position < count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func truncated() -> NormCacheError {
        NormCacheError(.json, "JSON error at byte \(count): unexpected end of input (truncated?)")
    }

    private func error(_ what: String) -> NormCacheError {
        NormCacheError(.json, "JSON error at byte \(position): \(what)")
    }

    // The string's two errors are built out of line: `scanString` is inlined at each
    // place a string is scanned.

    @inline(never)
    private func unterminatedString(at quote: Int) -> NormCacheError {
        NormCacheError(.json, "JSON error at byte \(quote): unterminated string (input ends at byte \(count))")
    }

    @inline(never)
    private func unescapedControlCharacter(_ byte: UInt8) -> NormCacheError {
        error("control character U+00\(hexByte(byte)) must be escaped in a string")
    }

    private func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    private func hexUnit(_ unit: UInt16) -> String {
        hexByte(UInt8(unit >> 8)) + hexByte(UInt8(unit & 0xFF))
    }
}
