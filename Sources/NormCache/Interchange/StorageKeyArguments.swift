/// Reads the arguments of a normcache field storage key (`FieldStorageKey`: the text
/// between the parentheses of `hero(episode:JEDI)`) back into JSON, as Apollo Client
/// writes them: object keys sorted; a value the schema types `String`, `ID` or an enum as
/// a JSON string (`null` aside); any other value that reads as `null`, `true`, `false` or
/// a JSON number as that literal, and the rest as strings. A list of input objects,
/// written as the objects' pairs in turn, starts a new object at each name that does not
/// sort after the one before.
///
/// Nil when the text is not in the notation (a key that was carried over as it was).
struct StorageKeyArguments {
    /// One value read from the notation.
    private indirect enum Value {
        /// Unescaped text; `escaped` when it began with an escape (`\null` is a string).
        case text([UInt8], escaped: Bool)
        case list([Value])
        case object([(name: [UInt8], value: Value)])
    }

    private let bytes: [UInt8]
    private var position = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The JSON object of the arguments `inner`, or nil when it is not in the notation.
    /// `isText` tells, for the path of a value (an argument's name, then the input-object
    /// field names below it), whether the schema types it as text (true), as a number or
    /// a boolean (false), or does not say (nil).
    static func json(_ inner: [UInt8], isText: ([String]) -> Bool?) -> [UInt8]? {
        var reader = StorageKeyArguments(inner)
        guard let pairs = reader.pairs(), reader.position == inner.count else { return nil }
        var out: [UInt8] = []
        append(.object(pairs), at: [], isText: isText, to: &out)
        return out
    }

    private var next: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard next == byte else { return false }
        position += 1
        return true
    }

    /// `pair (',' pair)*`.
    private mutating func pairs() -> [(name: [UInt8], value: Value)]? {
        var found: [(name: [UInt8], value: Value)] = []
        repeat {
            guard let pair = pair() else { return nil }
            found.append(pair)
        } while take(UInt8(ascii: ","))
        return found
    }

    /// `[name:pairs]` (an object-valued pair) or `name:value`.
    private mutating func pair() -> (name: [UInt8], value: Value)? {
        if take(UInt8(ascii: "[")) {
            guard let (name, _) = text(), take(UInt8(ascii: ":")), let fields = pairs(), take(UInt8(ascii: "]")) else { return nil }
            return (name, .object(fields))
        }
        guard let (name, _) = text(), take(UInt8(ascii: ":")), let value = value() else { return nil }
        return (name, value)
    }

    /// A list `[...]` or a scalar's text.
    private mutating func value() -> Value? {
        guard take(UInt8(ascii: "[")) else { return text().map { Value.text($0.text, escaped: $0.escaped) } }
        if take(UInt8(ascii: "]")) { return .list([]) }
        let start = position
        if let fields = pairs(), take(UInt8(ascii: "]")) { return .list(Self.objects(fields)) }
        position = start
        var items: [Value] = []
        repeat {
            guard let item = value() else { return nil }
            items.append(item)
        } while take(UInt8(ascii: ",")) && take(UInt8(ascii: " "))
        return take(UInt8(ascii: "]")) ? .list(items) : nil
    }

    /// Unescaped text up to an unescaped separator; nil when empty-handed at a byte
    /// that only a separator may be (`[`, `(`, `)`) or at the end of an escape.
    private mutating func text() -> (text: [UInt8], escaped: Bool)? {
        var found: [UInt8] = []
        let escaped = next == UInt8(ascii: "\\")
        while let byte = next {
            switch byte {
            case UInt8(ascii: "\\"):
                guard position + 1 < bytes.count else { return nil }
                found.append(bytes[position + 1])
                position += 2
            case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "]"):
                return (found, escaped)
            case UInt8(ascii: "["), UInt8(ascii: "("), UInt8(ascii: ")"):
                return nil
            default:
                found.append(byte)
                position += 1
            }
        }
        return (found, escaped)
    }

    /// The objects of a list of input objects, from their pairs in turn.
    private static func objects(_ pairs: [(name: [UInt8], value: Value)]) -> [Value] {
        var objects: [[(name: [UInt8], value: Value)]] = []
        for pair in pairs {
            if let last = objects.last?.last, last.name.lexicographicallyPrecedes(pair.name) {
                objects[objects.count - 1].append(pair)
            } else {
                objects.append([pair])
            }
        }
        return objects.map { Value.object($0) }
    }

    /// Appends `value`, found at `path`, as JSON.
    private static func append(_ value: Value, at path: [String], isText: ([String]) -> Bool?, to out: inout [UInt8]) {
        switch value {
        case .text(let text, let escaped):
            let null = !escaped && (text.elementsEqual("null".utf8) || text.elementsEqual("<null>".utf8))
            if null {
                out.append(contentsOf: "null".utf8)
            } else if !escaped, isText(path) != true, text.elementsEqual("true".utf8) || text.elementsEqual("false".utf8) || isNumber(text) {
                out.append(contentsOf: text)
            } else {
                JSONString.appendQuoted(text, to: &out)
            }
        case .list(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                append(item, at: path, isText: isText, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, field) in fields.sorted(by: { $0.name.lexicographicallyPrecedes($1.name) }).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONString.appendQuoted(field.name, to: &out)
                out.append(UInt8(ascii: ":"))
                append(field.value, at: path + [String(decoding: field.name, as: UTF8.self)], isText: isText, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Whether `text` is a JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
    static func isNumber(_ text: [UInt8]) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]) { index += 1 }
            return index - start
        }
        if index < text.count, text[index] == UInt8(ascii: "-") { index += 1 }
        let whole = index
        guard digits() > 0, text[whole] != UInt8(ascii: "0") || index == whole + 1 else { return false }
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < text.count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == text.count
    }
}
