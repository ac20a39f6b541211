// The neutral form both syntax trees are converted into: one line per node, children
// indented by two spaces, in source order. It keeps what both trees represent —
// definitions with their kinds and names; selections with alias, name, arguments and
// directives; values (strings decoded, numbers as written, enum values, lists,
// objects, variables); type references; fragments and type conditions; variable
// definitions with defaults and directives; type system definitions with
// descriptions, fields, arguments, types, defaults, interfaces, union members, enum
// values, root operation types and directive locations — and leaves out source
// positions, whether a string was a block string, and the description of a `schema`
// definition (normcache's tree has no place for it). Every character outside
// printable ASCII is written as `\u{…}`, so two summaries are equal exactly when their
// Unicode scalars are, not merely canonically equivalent.

/// A summary under construction.
struct CanonicalSummary {
    private(set) var lines: [String] = []
    private var depth = 0

    /// The summary as text, one node a line.
    var text: String { lines.joined(separator: "\n") }

    /// Adds a node at the current depth.
    mutating func line(_ text: String) {
        lines.append(String(repeating: "  ", count: depth) + text)
    }

    /// Adds the nodes `body` writes one level deeper.
    mutating func nested(_ body: (inout CanonicalSummary) throws -> Void) rethrows {
        depth += 1
        defer { depth -= 1 }
        try body(&self)
    }

    /// `description "…"`, when there is one.
    mutating func description(_ value: String?) {
        if let value { line("description " + Canonical.string(value)) }
    }
}

/// The textual pieces of a summary.
enum Canonical {
    /// A decoded string value, quoted: `"`, `\` and every scalar outside printable
    /// ASCII escaped.
    static func string(_ value: String) -> String {
        var text = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case " "..."~": text.unicodeScalars.append(scalar)
            default: text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return text + "\""
    }

    /// `(a: 1, b: $v)`, or nothing for no arguments.
    static func arguments(_ arguments: [(name: String, value: String)]) -> String {
        arguments.isEmpty ? "" : "(" + arguments.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + ")"
    }

    /// ` @a(x: 1) @b`, or nothing for no directives.
    static func directives(_ directives: [(name: String, arguments: [(name: String, value: String)])]) -> String {
        directives.map { " @" + $0.name + arguments($0.arguments) }.joined()
    }

    /// ` = value`, or nothing.
    static func defaultValue(_ value: String?) -> String {
        value.map { " = " + $0 } ?? ""
    }
}
