/// Prints executable GraphQL back to text the way graphql-js's `print` does (the
/// printer Apollo's code generators use): two-space indentation, one selection per
/// line, `name(a: 1, b: "x")`, lists `[1, 2]`, objects `{a: 1, b: 2}`, strings
/// escaped as graphql-js's `printString` escapes them, numbers and enum values as
/// written, definitions separated by a blank line and no final newline. Like
/// graphql-js, a field whose `alias: name(arguments)` is longer than 80 UTF-16 code
/// units gets one argument per line. Block strings print as ordinary strings (the
/// syntax tree does not remember them), which gives the same value.
enum GraphQLPrinter {
    /// The longest `alias: name(arguments)` kept on one line (graphql-js's `MAX_LINE_LENGTH`).
    static let maxLineLength = 80

    /// The operation followed by the fragments of `fragments` that it uses, directly or
    /// through other fragments, in the order of `fragments` (the first of a name wins).
    static func print(_ operation: OperationDefinition, fragments: [FragmentDefinition]) -> String {
        print(operation, fragments: DocumentFragments(fragments))
    }

    /// `print(_:fragments:)` for fragments already in a table.
    static func print(_ operation: OperationDefinition, fragments table: DocumentFragments) -> String {
        let used = usedFragments(operation.selections, in: table)
        var text = print(operation)
        for (position, fragment) in table.definitions.enumerated() where used[position] {
            text += "\n\n" + print(fragment)
        }
        return text
    }

    /// `query Name($v: T = default) @dir {` … `}`, or the bare selection set of an
    /// anonymous query without variables or directives.
    static func print(_ operation: OperationDefinition) -> String {
        var nameAndVariables = operation.name ?? ""
        if !operation.variables.isEmpty {
            nameAndVariables += "(" + operation.variables.map(print).joined(separator: ", ") + ")"
        }
        var prefix = operation.kind.rawValue
        if !nameAndVariables.isEmpty { prefix += " " + nameAndVariables }
        appendDirectives(operation.directives, to: &prefix)
        var text = prefix == "query" ? "" : prefix + " "
        writeSelectionSet(operation.selections, indent: "", into: &text)
        return text
    }

    /// `fragment Name on Type @dir {` … `}`.
    static func print(_ fragment: FragmentDefinition) -> String {
        var text = "fragment \(fragment.name) on \(fragment.typeCondition)"
        appendDirectives(fragment.directives, to: &text)
        text += " "
        writeSelectionSet(fragment.selections, indent: "", into: &text)
        return text
    }

    /// `$name: Type = default @dir`.
    static func print(_ variable: VariableDefinition) -> String {
        var text = "$\(variable.name): \(print(variable.type))"
        if let defaultValue = variable.defaultValue { text += " = " + print(defaultValue) }
        appendDirectives(variable.directives, to: &text)
        return text
    }

    /// A value on one line: `$v`, `1`, `1.5e3`, `"text"`, `true`, `null`, `JEDI`,
    /// `[1, 2]`, `{a: 1, b: 2}`.
    static func print(_ value: GraphQLValue) -> String {
        switch value {
        case .variable(let name): return "$" + name
        case .int(let text), .float(let text), .enumValue(let text): return text
        case .string(let string): return quoted(string)
        case .boolean(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .list(let items): return "[" + items.map(print).joined(separator: ", ") + "]"
        case .object(let fields): return "{" + fields.map { $0.name + ": " + print($0.value) }.joined(separator: ", ") + "}"
        }
    }

    /// `Name`, `[T]`, `T!`.
    static func print(_ type: TypeReference) -> String {
        switch type {
        case .named(let name): return name
        case .list(let inner): return "[" + print(inner) + "]"
        case .nonNull(let inner): return print(inner) + "!"
        }
    }

    /// A string literal as graphql-js's `printString` writes it: `"` and `\` escaped,
    /// `\b \t \n \f \r` by name, the other C0 controls and U+007F–U+009F as `\uXXXX`
    /// with upper-case hex digits; everything else as is.
    static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\u{8}": text += "\\b"
            case "\t": text += "\\t"
            case "\n": text += "\\n"
            case "\u{C}": text += "\\f"
            case "\r": text += "\\r"
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    /// Whether `selections` spread each of `fragments`, by position: directly or
    /// through the fragments they spread (unknown names are left out; cycles end).
    static func usedFragments(_ selections: [Selection], in fragments: DocumentFragments) -> [Bool] {
        var used = [Bool](repeating: false, count: fragments.count)
        var pending = [selections]
        while let next = pending.popLast() {
            for selection in next {
                switch selection {
                case .field(let field):
                    if let children = field.selections { pending.append(children) }
                case .inlineFragment(let inline):
                    pending.append(inline.selections)
                case .fragmentSpread(let spread):
                    if let position = fragments.position(of: spread), !used[position] {
                        used[position] = true
                        pending.append(fragments.definitions[position].selections)
                    }
                }
            }
        }
        return used
    }

    // MARK: Writing

    /// ` @a(x: 1) @b`, each directive after a space; nothing without directives.
    private static func appendDirectives(_ directives: [Directive], to text: inout String) {
        for directive in directives {
            text += " @"
            text += directive.name
            guard !directive.arguments.isEmpty else { continue }
            text += "("
            text += arguments(directive.arguments).joined(separator: ", ")
            text += ")"
        }
    }

    /// Each argument as `name: value`.
    private static func arguments(_ arguments: [Argument]) -> [String] {
        arguments.map { $0.name + ": " + print($0.value) }
    }

    /// `{`, each selection on its own line indented two more spaces, `}` at `indent`;
    /// nothing for an empty selection set (as graphql-js).
    private static func writeSelectionSet(_ selections: [Selection], indent: String, into text: inout String) {
        guard !selections.isEmpty else { return }
        let inner = indent + "  "
        text += "{\n"
        for selection in selections {
            text += inner
            write(selection, indent: inner, into: &text)
            text += "\n"
        }
        text += indent
        text += "}"
    }

    /// One selection starting on a line indented by `indent`: its head, then its
    /// directives and selection set each after a space. Written piece by piece into
    /// `text` (a prepared operation prints its network document, and most selections
    /// are a bare field name).
    private static func write(_ selection: Selection, indent: String, into text: inout String) {
        let selections: [Selection]
        switch selection {
        case .field(let field):
            if let alias = field.alias {
                text += alias
                text += ": "
            }
            text += field.name
            if !field.arguments.isEmpty {
                let printed = arguments(field.arguments)
                let inline = "(" + printed.joined(separator: ", ") + ")"
                let head = (field.alias.map { $0.utf16.count + 2 } ?? 0) + field.name.utf16.count
                text += head + inline.utf16.count <= maxLineLength ? inline
                    : "(\n" + printed.map { indent + "  " + $0 }.joined(separator: "\n") + "\n" + indent + ")"
            }
            appendDirectives(field.directives, to: &text)
            selections = field.selections ?? []
        case .fragmentSpread(let spread):
            text += "..."
            text += spread.name
            appendDirectives(spread.directives, to: &text)
            selections = []
        case .inlineFragment(let inline):
            text += "..."
            if let typeCondition = inline.typeCondition {
                text += " on "
                text += typeCondition
            }
            appendDirectives(inline.directives, to: &text)
            selections = inline.selections
        }
        if !selections.isEmpty {
            text += " "
            writeSelectionSet(selections, indent: indent, into: &text)
        }
    }
}
