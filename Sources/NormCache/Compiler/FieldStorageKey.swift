/// The key a field is stored under in its record, as Apollo iOS writes it: the schema
/// field name, and with arguments `name(a:1,b:x)` — arguments sorted by name, strings
/// and enums as written, `null` as `a:null`; an input object argument as
/// `[name:k:v,...]` with its own pairs sorted (nested objects alike); a list of input
/// objects as each object's pairs in turn, each object's pairs sorted,
/// `[commentary:x,stars:1,stars:2]`; any other list as `[1, 2]` with null elements
/// `<null>`; integers in decimal, floats as the shortest text that round-trips (`1.5`,
/// `2.0`). Absent variables drop what holds them.
///
/// One departure from Apollo keeps different argument sets apart: inside string values
/// (and input-object member names, which only variables' JSON can make unusual) the
/// separators `,` `:` `[` `]` `(` `)` and the escape character `\` are written after a
/// `\`, and a string that reads `null` or `<null>` (the two spellings of null) is
/// written with a leading `\`. Strings without these keep Apollo's key exactly. Enum
/// values are GraphQL names, which hold no separator and are never `null`.
enum FieldStorageKey {
    /// The storage key of field `name` with `arguments` under `variables`; integers
    /// given for `floatArguments` are written as floats.
    static func make(name: String, arguments: [Argument], variables: Variables, floatArguments: Set<String> = []) -> String {
        let resolved = arguments.compactMap { argument in
            ArgumentValue(argument.value, variables).map { value in
                (name: argument.name, value: floatArguments.contains(argument.name) ? value.asFloat : value)
            }
        }
        return make(name: name, resolved: resolved)
    }

    /// The storage key of field `name` with arguments already resolved (as an Apollo
    /// Client cache file gives them): no arguments, no parentheses.
    static func make(name: String, resolved: [(name: String, value: ArgumentValue)]) -> String {
        guard !resolved.isEmpty else { return name }
        return name + "(" + pairs(resolved) + ")"
    }

    /// `text` with a `\` before each separator and each `\`; `null` and `<null>` (when
    /// `spellsNull`) after a `\` too. Text that needs none comes back as it is.
    static func escape(_ text: String, spellsNull: Bool = true) -> String {
        if spellsNull, text == "null" || text == "<null>" { return "\\" + text }
        guard text.utf8.contains(where: isSeparator) else { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count + 4)
        for byte in text.utf8 {
            if isSeparator(byte) { escaped.append(UInt8(ascii: "\\")) }
            escaped.append(byte)
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// Whether `byte` is one of the bytes a string value escapes: `,` `:` `[` `]` `(`
    /// `)` or `\` (all ASCII, so never part of a multi-byte UTF-8 sequence).
    private static func isSeparator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"):
            return true
        default:
            return false
        }
    }

    /// The `name:value` pairs of an argument list or an input object, sorted by name's
    /// UTF-8 bytes and joined by `,`; an object-valued pair as `[name:pairs]`.
    private static func pairs(_ pairs: [(name: String, value: ArgumentValue)]) -> String {
        pairs.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }.map { pair in
            let name = escape(pair.name, spellsNull: false)
            if case .object(let fields) = pair.value { return "[" + name + ":" + Self.pairs(fields) + "]" }
            return name + ":" + format(pair.value)
        }.joined(separator: ",")
    }

    /// The text of one value: scalars as Apollo writes them (strings escaped), an
    /// object's sorted pairs, a list of objects as their pairs in turn, any other list as
    /// `[a, b]`.
    private static func format(_ value: ArgumentValue) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let flag): return flag ? "true" : "false"
        case .int(let text): return text
        case .float(let text): return Double(text).map { "\($0)" } ?? text
        case .string(let text): return escape(text)
        case .enumValue(let text): return text
        case .object(let fields): return pairs(fields)
        case .list(let items):
            if !items.isEmpty, items.allSatisfy({ if case .object = $0 { return true } else { return false } }) {
                return "[" + items.map(format).joined(separator: ",") + "]"
            }
            return "[" + items.map { $0 == .null ? "<null>" : format($0) }.joined(separator: ", ") + "]"
        }
    }
}
