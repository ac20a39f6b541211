/// The key a field is stored under in its record, as Apollo iOS writes it: the schema
/// field name, and with arguments `name(a:1,b:x)` — arguments sorted by name, strings
/// and enums as written, `null` as `a:null`; an input object argument as
/// `[name:k:v,...]` with its own pairs sorted (nested objects alike); a list of input
/// objects as each object's pairs in turn, `[stars:1,commentary:x,stars:2]`; any other
/// list as `[1, 2]` with null elements `<null>`; integers in decimal, floats as the
/// shortest text that round-trips (`1.5`, `2.0`). Absent variables drop what holds them.
enum FieldStorageKey {
    /// The storage key of field `name` with `arguments` under `variables`; integers
    /// given for `floatArguments` are written as floats.
    static func make(name: String, arguments: [Argument], variables: Variables, floatArguments: Set<String> = []) -> String {
        let resolved = arguments.compactMap { argument in
            ArgumentValue(argument.value, variables).map { value in
                (name: argument.name, value: floatArguments.contains(argument.name) ? value.asFloat : value)
            }
        }
        guard !resolved.isEmpty else { return name }
        return name + "(" + pairs(resolved, sorted: true) + ")"
    }

    private static func pairs(_ pairs: [(name: String, value: ArgumentValue)], sorted: Bool) -> String {
        let ordered = sorted ? pairs.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) } : pairs
        return ordered.map { pair in
            if case .object(let fields) = pair.value { return "[" + pair.name + ":" + Self.pairs(fields, sorted: true) + "]" }
            return pair.name + ":" + format(pair.value)
        }.joined(separator: ",")
    }

    private static func format(_ value: ArgumentValue) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let flag): return flag ? "true" : "false"
        case .int(let text): return text
        case .float(let text): return Double(text).map { "\($0)" } ?? text
        case .string(let text), .enumValue(let text): return text
        case .object(let fields): return pairs(fields, sorted: false)
        case .list(let items):
            if !items.isEmpty, items.allSatisfy({ if case .object = $0 { return true } else { return false } }) {
                return "[" + items.map(format).joined(separator: ",") + "]"
            }
            return "[" + items.map { $0 == .null ? "<null>" : format($0) }.joined(separator: ", ") + "]"
        }
    }
}
