/// Splits GraphQL source text into tokens (GraphQL specification, October 2021, §2):
/// punctuators, names, numbers, strings and block strings; white space, line
/// terminators, commas, comments and a byte order mark are skipped. Every error names
/// the line and column where it starts.
struct GraphQLLexer {
    /// The source text, validated as UTF-8.
    let source: [UInt8]
    /// The error code of this source's errors: `.document` or `.schema`.
    let errorCode: NormCacheError.Code
    private var position = 0
    private var line = 1
    private var lineStart = 0
    /// The last position whose column was counted, on the current line, and its column:
    /// each column is counted on from there, so a long line costs one pass, not one per
    /// token.
    private var counted = (position: 0, column: 1)
    /// The most tokens `next` gives before it throws (`DocumentLimits.tokens`), and the
    /// error's message.
    private var tokenLimit: (count: Int, message: String)?
    /// The tokens given so far.
    private var tokens = 0
    /// Looks at the handle's interrupt flag every few hundred tokens.
    private var interruptCheck = InterruptCheck()

    /// A lexer over `source`; throws when it is not UTF-8. With `limits`, `next` throws
    /// at the first token past `limits.tokens`.
    init(_ source: [UInt8], errorCode: NormCacheError.Code, limits: DocumentLimits? = nil) throws(NormCacheError) {
        self.source = source
        self.errorCode = errorCode
        tokenLimit = limits.map { ($0.tokens, $0.tokensMessage) }
        if String(validating: source, as: UTF8.self) == nil {
            let valid = Self.validPrefixLength(source)
            var probe = GraphQLLexer(unchecked: source, errorCode: errorCode)
            probe.advance(to: valid)
            throw probe.error("invalid UTF-8", at: probe.location)
        }
        skipIgnored()
    }

    private init(unchecked source: [UInt8], errorCode: NormCacheError.Code) {
        self.source = source
        self.errorCode = errorCode
    }

    /// The position of the next token.
    var location: SourceLocation {
        mutating get {
            if counted.position < lineStart || counted.position > position { counted = (lineStart, 1) }
            var column = counted.column
            var index = counted.position
            while index < position {
                if source[index] & 0xC0 != 0x80 { column += 1 }
                index += 1
            }
            counted = (position, column)
            return SourceLocation(line: line, column: column)
        }
    }

    /// Reads the next token.
    mutating func next() throws(NormCacheError) -> GraphQLToken {
        try interruptCheck.pass()
        let start = position
        let location = self.location
        guard position < source.count else {
            return GraphQLToken(kind: .endOfInput, start: start, end: start, location: location)
        }
        tokens += 1
        if let tokenLimit, tokens > tokenLimit.count { throw error(tokenLimit.message, at: location) }
        let kind: GraphQLToken.Kind
        let byte = source[position]
        switch byte {
        case UInt8(ascii: "!"): kind = .bang; position += 1
        case UInt8(ascii: "$"): kind = .dollar; position += 1
        case UInt8(ascii: "&"): kind = .ampersand; position += 1
        case UInt8(ascii: "("): kind = .leftParen; position += 1
        case UInt8(ascii: ")"): kind = .rightParen; position += 1
        case UInt8(ascii: ":"): kind = .colon; position += 1
        case UInt8(ascii: "="): kind = .equals; position += 1
        case UInt8(ascii: "@"): kind = .at; position += 1
        case UInt8(ascii: "["): kind = .leftBracket; position += 1
        case UInt8(ascii: "]"): kind = .rightBracket; position += 1
        case UInt8(ascii: "{"): kind = .leftBrace; position += 1
        case UInt8(ascii: "|"): kind = .pipe; position += 1
        case UInt8(ascii: "}"): kind = .rightBrace; position += 1
        case UInt8(ascii: "."):
            guard byteAt(position + 1) == UInt8(ascii: "."), byteAt(position + 2) == UInt8(ascii: ".") else {
                throw error("unexpected '.' (did you mean '...'?)", at: location)
            }
            kind = .spread
            position += 3
        case UInt8(ascii: "\""):
            if byteAt(position + 1) == UInt8(ascii: "\""), byteAt(position + 2) == UInt8(ascii: "\"") {
                try scanBlockString(location)
                kind = .blockString
            } else {
                try scanString(location)
                kind = .string
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            kind = try scanNumber(location)
        default:
            guard Self.isNameStart(byte) else { throw error("unexpected \(describe(at: position))", at: location) }
            position += 1
            while position < source.count, Self.isNameContinue(source[position]) { position += 1 }
            kind = .name
        }
        let token = GraphQLToken(kind: kind, start: start, end: position, location: location)
        skipIgnored()
        return token
    }

    /// The text of a token as written.
    func text(_ token: GraphQLToken) -> String {
        String(decoding: source[token.start..<token.end], as: UTF8.self)
    }

    // MARK: Ignored tokens

    private mutating func skipIgnored() {
        while position < source.count {
            switch source[position] {
            case 0x09, 0x20, UInt8(ascii: ","):
                position += 1
            case 0x0A:
                newLine(after: position + 1)
            case 0x0D:
                newLine(after: byteAt(position + 1) == 0x0A ? position + 2 : position + 1)
            case UInt8(ascii: "#"):
                // A comment runs to the end of the line; a control character (but tab) in it
                // is left for `next` to refuse.
                position += 1
                while position < source.count, source[position] >= 0x20 || source[position] == 0x09 { position += 1 }
            case 0xEF where byteAt(position + 1) == 0xBB && byteAt(position + 2) == 0xBF:
                position += 3
            default:
                return
            }
        }
    }

    private mutating func newLine(after index: Int) {
        position = index
        line += 1
        lineStart = index
    }

    /// Moves to `target`, counting the lines on the way (for error positions).
    private mutating func advance(to target: Int) {
        while position < target {
            let byte = source[position]
            if byte == 0x0A || (byte == 0x0D && byteAt(position + 1) != 0x0A) {
                newLine(after: position + 1)
            } else {
                position += 1
            }
        }
    }

    // MARK: Numbers

    private mutating func scanNumber(_ location: SourceLocation) throws(NormCacheError) -> GraphQLToken.Kind {
        var isFloat = false
        if source[position] == UInt8(ascii: "-") { position += 1 }
        if byteAt(position) == UInt8(ascii: "0") {
            position += 1
            if let digit = byteAt(position), Self.isDigit(digit) {
                throw error("invalid number: unexpected digit after 0", at: self.location)
            }
        } else {
            try scanDigits()
        }
        if byteAt(position) == UInt8(ascii: ".") {
            isFloat = true
            position += 1
            try scanDigits()
        }
        if let byte = byteAt(position), byte | 0x20 == UInt8(ascii: "e") {
            isFloat = true
            position += 1
            if byteAt(position) == UInt8(ascii: "+") || byteAt(position) == UInt8(ascii: "-") { position += 1 }
            try scanDigits()
        }
        if let byte = byteAt(position), byte == UInt8(ascii: ".") || Self.isNameStart(byte) {
            throw error("invalid number: unexpected \(describe(at: position))", at: self.location)
        }
        return isFloat ? .float : .int
    }

    private mutating func scanDigits() throws(NormCacheError) {
        guard let byte = byteAt(position), Self.isDigit(byte) else {
            throw error("invalid number: expected a digit, found \(describe(at: position))", at: location)
        }
        while let byte = byteAt(position), Self.isDigit(byte) { position += 1 }
    }

    // MARK: Strings

    private mutating func scanString(_ location: SourceLocation) throws(NormCacheError) {
        position += 1
        while true {
            guard let byte = byteAt(position), byte != 0x0A, byte != 0x0D else {
                throw error("unterminated string", at: location)
            }
            if byte == UInt8(ascii: "\"") { position += 1; return }
            if byte < 0x20 && byte != 0x09 {
                throw error("invalid character \(describe(at: position)) in a string", at: self.location)
            }
            if byte == UInt8(ascii: "\\") {
                let escapeLocation = self.location
                switch byteAt(position + 1) {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 2
                case UInt8(ascii: "u"):
                    for offset in 2..<6 {
                        guard let digit = byteAt(position + offset), JSONString.hexValue(digit) != nil else {
                            throw error("invalid \\u escape in a string (expected 4 hex digits)", at: escapeLocation)
                        }
                    }
                    position += 6
                default:
                    throw error("invalid escape in a string", at: escapeLocation)
                }
                continue
            }
            position += 1
        }
    }

    private mutating func scanBlockString(_ location: SourceLocation) throws(NormCacheError) {
        position += 3
        while true {
            guard let byte = byteAt(position) else { throw error("unterminated block string", at: location) }
            if byte == UInt8(ascii: "\""), byteAt(position + 1) == UInt8(ascii: "\""), byteAt(position + 2) == UInt8(ascii: "\"") {
                position += 3
                return
            }
            if byte == UInt8(ascii: "\\"), byteAt(position + 1) == UInt8(ascii: "\""),
               byteAt(position + 2) == UInt8(ascii: "\""), byteAt(position + 3) == UInt8(ascii: "\"") {
                position += 4
                continue
            }
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
                throw error("invalid character \(describe(at: position)) in a block string", at: self.location)
            }
            if byte == 0x0A || byte == 0x0D {
                newLine(after: byte == 0x0D && byteAt(position + 1) == 0x0A ? position + 2 : position + 1)
            } else {
                position += 1
            }
        }
    }

    // MARK: Helpers

    private func byteAt(_ index: Int) -> UInt8? {
        index < source.count ? source[index] : nil
    }

    /// The character at `index` for messages: quoted, or as U+XXXX when unprintable.
    private func describe(at index: Int) -> String {
        guard let byte = byteAt(index) else { return "end of input" }
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        var length = 1
        while index + length < source.count, source[index + length] & 0xC0 == 0x80 { length += 1 }
        let scalar = String(decoding: source[index..<index + length], as: UTF8.self).unicodeScalars.first
        let value = scalar.map { String($0.value, radix: 16, uppercase: true) } ?? "?"
        return "character U+" + String(repeating: "0", count: max(0, 4 - value.count)) + value
    }

    func error(_ message: String, at location: SourceLocation) -> NormCacheError {
        NormCacheError(errorCode, "GraphQL error at \(location): \(message)")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte == UInt8(ascii: "_")
    }

    private static func isNameContinue(_ byte: UInt8) -> Bool { isNameStart(byte) || isDigit(byte) }

    /// The offset of the first byte that is not part of valid UTF-8.
    private static func validPrefixLength(_ bytes: [UInt8]) -> Int {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { offset += scalar.count }
        return offset
    }
}
