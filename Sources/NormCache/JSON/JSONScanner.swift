/// The single pass that turns JSON bytes into `JSONToken`s; see `JSONDocument`.
struct JSONScanner {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    private var tokens: [JSONToken] = []
    /// Indices of the containers still open, innermost last.
    private var open: [Int] = []

    /// The most tokens reserved up front (1.3 GB); larger documents grow the array.
    private static let reservationLimit = 1 << 26

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Scans the whole input as exactly one JSON value surrounded by whitespace.
    mutating func scanDocument() throws(NormCacheError) -> [JSONToken] {
        // JSON holds at least about 5 bytes a token in practice: reserving that once
        // spares a large document the copies (and the doubled peak) of growing; pages
        // reserved but never written cost no memory.
        tokens.reserveCapacity(min(bytes.count / 5 + 16, Self.reservationLimit))
        skipWhitespace()
        var needValue = true
        while true {
            if needValue {
                needValue = try startValue()
                if needValue { continue }
            }
            guard let container = open.last else { break }
            skipWhitespace()
            guard position < bytes.count else { throw truncated() }
            let byte = bytes[position]
            let isObject = tokens[container].kind == .object
            if byte == UInt8(ascii: ",") {
                position += 1
                skipWhitespace()
                if isObject { try scanMemberKey() }
                tokens[container].length += 1
                needValue = true
            } else if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                tokens[container].closeOffset = UInt32(position)
                position += 1
                tokens[container].end = UInt32(tokens.count)
                open.removeLast()
            } else {
                throw error(isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element")
            }
        }
        skipWhitespace()
        guard position == bytes.count else { throw error("unexpected text after the JSON value") }
        return tokens
    }

    /// Scans the start of a value. Returns true when it opened a non-empty container
    /// whose first value comes next (after its key, for objects, which is scanned here).
    private mutating func startValue() throws(NormCacheError) -> Bool {
        guard position < bytes.count else { throw truncated() }
        let start = position
        switch bytes[position] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let isObject = bytes[position] == UInt8(ascii: "{")
            guard open.count < JSONDocument.maxDepth else {
                throw error("JSON nested deeper than \(JSONDocument.maxDepth) levels")
            }
            let index = tokens.count
            tokens.append(JSONToken(kind: isObject ? .object : .array, hasEscapes: false,
                                    offset: UInt32(start), length: 0, end: 0))
            position += 1
            skipWhitespace()
            guard position < bytes.count else { throw truncated() }
            if bytes[position] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                tokens[index].closeOffset = UInt32(position)
                position += 1
                tokens[index].end = UInt32(tokens.count)
                return false
            }
            open.append(index)
            if isObject { try scanMemberKey() }
            tokens[index].length = 1
            return true
        case UInt8(ascii: "\""):
            try scanString()
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
        return false
    }

    /// Scans `"key" :` of an object member, leaving the position at its value.
    private mutating func scanMemberKey() throws(NormCacheError) {
        guard position < bytes.count else { throw truncated() }
        guard bytes[position] == UInt8(ascii: "\"") else { throw error("expected a string as object key") }
        try scanString()
        skipWhitespace()
        guard position < bytes.count else { throw truncated() }
        guard bytes[position] == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
        position += 1
        skipWhitespace()
    }

    private mutating func scanLiteral(_ word: StaticString, _ kind: JSONToken.Kind) throws(NormCacheError) {
        let count = word.utf8CodeUnitCount
        let start = position
        for i in 0..<count {
            guard position < bytes.count else { throw truncated() }
            guard bytes[position] == word.utf8Start[i] else { throw error("invalid literal (expected '\(word)')") }
            position += 1
        }
        tokens.append(JSONToken(kind: kind, hasEscapes: false, offset: UInt32(start),
                                length: UInt32(count), end: UInt32(tokens.count + 1)))
    }

    private mutating func scanNumber() throws(NormCacheError) {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw truncated() }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            guard try skipDigits() > 0 else { throw error("expected a digit in a number") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard try skipDigits() > 0 else { throw error("expected a digit after the decimal point") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard try skipDigits() > 0 else { throw error("expected a digit in the exponent") }
        }
        tokens.append(JSONToken(kind: .number, hasEscapes: false, offset: UInt32(start),
                                length: UInt32(position - start), end: UInt32(tokens.count + 1)))
    }

    /// Skips ASCII digits and returns how many there were; the end of input after a
    /// number's required digit is reported as truncation.
    private mutating func skipDigits() throws(NormCacheError) -> Int {
        let start = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        if position == start, position == bytes.count { throw truncated() }
        return position - start
    }

    private mutating func scanString() throws(NormCacheError) {
        let quote = position
        position += 1
        let start = position
        var hasEscapes = false
        while true {
            skipPlainStringBytes()
            guard position < bytes.count else {
                throw NormCacheError(.json, "JSON error at byte \(quote): unterminated string (input ends at byte \(bytes.count))")
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try scanEscape()
            } else if byte < 0x20 {
                throw error("control character U+00\(hexByte(byte)) must be escaped in a string")
            } else if byte < 0x80 {
                position += 1
            } else {
                try scanUTF8Sequence()
            }
        }
        tokens.append(JSONToken(kind: .string, hasEscapes: hasEscapes, offset: UInt32(start),
                                length: UInt32(position - start), end: UInt32(tokens.count + 1)))
        position += 1
    }

    /// Skips string bytes eight at a time while none of them is a quote, a backslash, a
    /// control character or part of a multi-byte sequence (those take the exact path).
    private mutating func skipPlainStringBytes() {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        while position &+ 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
            let zeroBytes = ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)
            let controlBytes = (word &- ones &* 0x20) & ~word
            guard (zeroBytes | controlBytes | word) & highBits == 0 else { return }
            position &+= 8
        }
    }

    private mutating func scanEscape() throws(NormCacheError) {
        guard position + 1 < bytes.count else { throw truncated() }
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
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
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
            guard position + i < bytes.count else { throw truncated() }
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
            guard position + i < bytes.count else {
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

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func truncated() -> NormCacheError {
        NormCacheError(.json, "JSON error at byte \(bytes.count): unexpected end of input (truncated?)")
    }

    private func error(_ what: String) -> NormCacheError {
        NormCacheError(.json, "JSON error at byte \(position): \(what)")
    }

    private func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    private func hexUnit(_ unit: UInt16) -> String {
        hexByte(UInt8(unit >> 8)) + hexByte(UInt8(unit & 0xFF))
    }
}
