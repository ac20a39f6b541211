/// A JSON value read from text, its strings and numbers kept as their exact text, so
/// that printing it again changes no digit or escape (`1.0` stays `1.0`).
indirect enum JSONValue: Equatable {
    /// An object: its members in order, each name as its string literal text.
    case object([Member])
    /// An array.
    case array([JSONValue])
    /// A string, number, `true`, `false` or `null`, as its text.
    case scalar(String)

    /// An object's member: its name as a string literal (quotes and escapes kept) and its value.
    struct Member: Equatable {
        /// The name as its string literal text.
        var name: String
        /// The value.
        var value: JSONValue
    }

    /// The key of a reference (`{"$reference": "User:1"}`), or nil.
    var reference: String? {
        guard case .object(let members) = self, members.count == 1, JSONText.decode(members[0].name) == "$reference",
              case .scalar(let text) = members[0].value
        else { return nil }
        return JSONText.decode(text)
    }

    /// The value of the member named `name`, for an object that has one.
    func member(_ name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { JSONText.decode($0.name) == name }?.value
    }

    /// The value as compact JSON text.
    var compact: String {
        switch self {
        case .scalar(let text): return text
        case .array(let elements): return "[" + elements.map(\.compact).joined(separator: ",") + "]"
        case .object(let members): return "{" + members.map { $0.name + ":" + $0.value.compact }.joined(separator: ",") + "}"
        }
    }

    /// The value as indented JSON text (two spaces a level); a reference stays on one line.
    func pretty(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .scalar(let text): return text
        case .array(let elements) where elements.isEmpty: return "[]"
        case .array(let elements):
            return "[\n" + elements.map { inner + $0.pretty(indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let members) where members.isEmpty: return "{}"
        case .object(let members) where reference != nil: return "{" + members[0].name + ": " + members[0].value.compact + "}"
        case .object(let members):
            return "{\n" + members.map { inner + $0.name + ": " + $0.value.pretty(indent: inner) }.joined(separator: ",\n")
                + "\n" + indent + "}"
        }
    }
}

/// Reads JSON text into `JSONValue`s; errors name the byte offset.
struct JSONText {
    /// A syntax error: what was wrong, and at which byte offset.
    struct SyntaxError: Error {
        /// What was wrong and where.
        var message: String
    }

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    /// How deep arrays and objects may nest.
    private static let maximumDepth = 512
    /// The characters of the one-letter escapes, by the letter after the backslash.
    private static let escapes: [UInt8: Unicode.Scalar] = [
        0x22: "\"", 0x5C: "\\", 0x2F: "/", 0x62: "\u{8}", 0x66: "\u{C}", 0x6E: "\n", 0x72: "\r", 0x74: "\t",
    ]

    /// Parses `bytes`, one JSON value with only whitespace around it.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        var parser = JSONText(bytes: bytes)
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// The text of a JSON string literal (with its quotes) decoded; the text itself when
    /// it is no string literal.
    static func decode(_ literal: String) -> String {
        let bytes = Array(literal.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.contains(UInt8(ascii: "\\")) else {
            return bytes.first == UInt8(ascii: "\"") ? String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self) : literal
        }
        var scalars = String.UnicodeScalarView()
        var index = 1
        let end = bytes.count - 1
        var pendingHigh: UInt32?
        while index < end {
            guard bytes[index] == UInt8(ascii: "\\"), index + 1 < end else {
                let start = index
                index += 1
                while index < end && bytes[index] != UInt8(ascii: "\\") { index += 1 }
                scalars.append(contentsOf: String(decoding: bytes[start..<index], as: UTF8.self).unicodeScalars)
                continue
            }
            let escape = bytes[index + 1]
            index += 2
            if let scalar = escapes[escape] {
                scalars.append(scalar)
            } else if escape == UInt8(ascii: "u"), index + 4 <= end, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) {
                index += 4
                if (0xD800..<0xDC00).contains(code) {
                    pendingHigh = code
                    continue
                }
                if let high = pendingHigh, (0xDC00..<0xE000).contains(code) {
                    scalars.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)) ?? "\u{FFFD}")
                } else {
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                }
            }
            pendingHigh = nil
        }
        return String(scalars)
    }

    private func error(_ what: String) -> SyntaxError {
        SyntaxError(message: position < bytes.count ? "\(what) at byte \(position)" : "\(what): the text ends at byte \(position)")
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func value() throws(SyntaxError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw error("expected a JSON value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try container(close: UInt8(ascii: "}"))
        case UInt8(ascii: "["): return try container(close: UInt8(ascii: "]"))
        case UInt8(ascii: "\""): return .scalar(try string())
        default: return .scalar(try word())
        }
    }

    private mutating func container(close: UInt8) throws(SyntaxError) -> JSONValue {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        defer { depth -= 1 }
        position += 1
        var members: [JSONValue.Member] = []
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count && bytes[position] == close {
            position += 1
            return close == UInt8(ascii: "}") ? .object([]) : .array([])
        }
        while true {
            if close == UInt8(ascii: "}") {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a member name") }
                let name = try string()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
                position += 1
                members.append(JSONValue.Member(name: name, value: try value()))
            } else {
                elements.append(try value())
            }
            skipWhitespace()
            guard position < bytes.count else { throw error("expected ',' or '\(Character(Unicode.Scalar(close)))'") }
            if bytes[position] == close {
                position += 1
                return close == UInt8(ascii: "}") ? .object(members) : .array(elements)
            }
            guard bytes[position] == UInt8(ascii: ",") else { throw error("expected ',' or '\(Character(Unicode.Scalar(close)))'") }
            position += 1
        }
    }

    private mutating func string() throws(SyntaxError) -> String {
        let start = position
        position += 1
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: bytes[start..<position], as: UTF8.self) else {
                    position = start
                    throw error("a string that is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"): position += 2
            case 0..<0x20: throw error("a control character in a string")
            default: position += 1
            }
        }
        throw error("an unterminated string")
    }

    private mutating func word() throws(SyntaxError) -> String {
        let start = position
        while position < bytes.count, !Self.ends(bytes[position]) { position += 1 }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard text == "true" || text == "false" || text == "null" || Self.isNumber(text) else {
            position = start
            throw error(text.isEmpty ? "expected a JSON value" : "'\(text.prefix(20))' is not a JSON value")
        }
        return text
    }

    private static func ends(_ byte: UInt8) -> Bool {
        [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ":")].contains(byte)
    }

    /// Whether `text` is a JSON number (RFC 8259's grammar).
    private static func isNumber(_ text: String) -> Bool {
        var rest = Substring(text).utf8[...]
        func digits() -> Int {
            let count = rest.prefix { (0x30...0x39).contains($0) }.count
            rest = rest.dropFirst(count)
            return count
        }
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        if rest.first == UInt8(ascii: "0") { rest = rest.dropFirst() } else if digits() == 0 { return false }
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            guard digits() > 0 else { return false }
        }
        if rest.first == UInt8(ascii: "e") || rest.first == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return rest.isEmpty
    }
}
