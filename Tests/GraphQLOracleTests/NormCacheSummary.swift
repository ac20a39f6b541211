@testable import NormCache

/// Converts normcache's syntax tree (GraphQLAST.swift) into the canonical summary.
enum NormCacheSummary {
    static func summarize(_ document: NormCache.GraphQLDocument) -> String {
        var summary = CanonicalSummary()
        for definition in document.definitions { write(definition, into: &summary) }
        return summary.text
    }

    private static func write(_ definition: NormCache.GraphQLDefinition, into summary: inout CanonicalSummary) {
        switch definition {
        case .operation(let operation):
            summary.line("operation \(operation.kind.rawValue) \(operation.name ?? "-")" + directives(operation.directives))
            summary.nested { inner in
                for variable in operation.variables {
                    inner.line("variable $\(variable.name): \(type(variable.type))"
                               + Canonical.defaultValue(variable.defaultValue.map(value)) + directives(variable.directives))
                }
                write(operation.selections, into: &inner)
            }
        case .fragment(let fragment):
            summary.line("fragment \(fragment.name) on \(fragment.typeCondition)" + directives(fragment.directives))
            summary.nested { write(fragment.selections, into: &$0) }
        case .schema(let schema):
            summary.line((schema.isExtension ? "extend schema" : "schema") + directives(schema.directives))
            summary.nested { inner in
                for root in schema.operationTypes { inner.line("root \(root.operation.rawValue): \(root.type)") }
            }
        case .type(let definition):
            var header = (definition.isExtension ? "extend " : "") + definition.kind.rawValue + " " + definition.name
            if !definition.interfaces.isEmpty { header += " implements " + definition.interfaces.joined(separator: " & ") }
            summary.line(header + directives(definition.directives))
            summary.nested { inner in
                inner.description(definition.description)
                switch definition.kind {
                case .object, .interface:
                    for field in definition.fields { write(field, as: "field", into: &inner) }
                case .input:
                    for field in definition.fields { write(field, as: "input-field", into: &inner) }
                case .union:
                    if !definition.unionMembers.isEmpty { inner.line("members " + definition.unionMembers.joined(separator: " | ")) }
                case .enum:
                    for enumValue in definition.enumValues {
                        inner.line("value \(enumValue.name)" + directives(enumValue.directives))
                        inner.nested { $0.description(enumValue.description) }
                    }
                case .scalar:
                    break
                }
            }
        case .directive(let directive):
            summary.line("directive @\(directive.name)" + (directive.isRepeatable ? " repeatable" : "")
                         + " on " + directive.locations.joined(separator: " | "))
            summary.nested { inner in
                inner.description(directive.description)
                for argument in directive.arguments { write(argument, as: "argument", into: &inner) }
            }
        }
    }

    /// A field definition (with its arguments), an input field or an argument definition.
    private static func write(_ field: NormCache.FieldDefinition, as kind: String, into summary: inout CanonicalSummary) {
        summary.line("\(kind) \(field.name): \(type(field.type))" + Canonical.defaultValue(field.defaultValue.map(value))
                     + directives(field.directives))
        summary.nested { inner in
            inner.description(field.description)
            for argument in field.arguments { write(argument, as: "argument", into: &inner) }
        }
    }

    private static func write(_ selections: [NormCache.Selection], into summary: inout CanonicalSummary) {
        for selection in selections {
            switch selection {
            case .field(let field):
                summary.line("field " + (field.alias.map { $0 + ":" } ?? "") + field.name
                             + Canonical.arguments(field.arguments.map { ($0.name, value($0.value)) }) + directives(field.directives))
                if let selections = field.selections { summary.nested { write(selections, into: &$0) } }
            case .fragmentSpread(let spread):
                summary.line("spread \(spread.name)" + directives(spread.directives))
            case .inlineFragment(let fragment):
                summary.line("inline" + (fragment.typeCondition.map { " on " + $0 } ?? "") + directives(fragment.directives))
                summary.nested { write(fragment.selections, into: &$0) }
            }
        }
    }

    private static func directives(_ directives: [NormCache.Directive]) -> String {
        Canonical.directives(directives.map { ($0.name, $0.arguments.map { ($0.name, value($0.value)) }) })
    }

    static func value(_ value: NormCache.GraphQLValue) -> String {
        switch value {
        case .variable(let name): return "$" + name
        case .int(let text): return "int:" + text
        case .float(let text): return "float:" + text
        case .string(let text): return Canonical.string(text)
        case .boolean(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .enumValue(let name): return "enum:" + name
        case .list(let items): return "[" + items.map(self.value).joined(separator: ", ") + "]"
        case .object(let fields): return "{" + fields.map { "\($0.name): \(self.value($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    static func type(_ type: NormCache.TypeReference) -> String {
        switch type {
        case .named(let name): return name
        case .list(let inner): return "[" + self.type(inner) + "]"
        case .nonNull(let inner): return self.type(inner) + "!"
        }
    }
}
