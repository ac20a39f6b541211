import GraphQL

/// Converts GraphQLSwift's syntax tree (the oracle) into the canonical summary.
enum GraphQLSwiftSummary {
    /// A node this converter does not know: the summary cannot be trusted.
    struct UnknownNode: Error, CustomStringConvertible {
        var description: String

        init(node: Any) { description = "unknown GraphQLSwift node \(Swift.type(of: node))" }
    }

    static func summarize(_ document: GraphQL.Document) throws -> String {
        var summary = CanonicalSummary()
        for definition in document.definitions { try write(definition, into: &summary) }
        return summary.text
    }

    /// Whether every definition is an operation or a fragment.
    static func isExecutable(_ document: GraphQL.Document) -> Bool {
        document.definitions.allSatisfy { $0 is GraphQL.OperationDefinition || $0 is GraphQL.FragmentDefinition }
    }

    /// Whether every definition is a type system definition or extension.
    static func isTypeSystem(_ document: GraphQL.Document) -> Bool {
        document.definitions.allSatisfy { $0 is GraphQL.TypeSystemDefinition }
    }

    private static func write(_ definition: any GraphQL.Definition, into summary: inout CanonicalSummary) throws {
        switch definition {
        case let operation as GraphQL.OperationDefinition:
            summary.line("operation \(operation.operation.rawValue) \(operation.name?.value ?? "-")" + directives(operation.directives))
            try summary.nested { inner in
                for variable in operation.variableDefinitions {
                    inner.line("variable $\(variable.variable.name.value): \(try type(variable.type))"
                               + Canonical.defaultValue(try variable.defaultValue.map(value)) + directives(variable.directives))
                }
                try write(operation.selectionSet, into: &inner)
            }
        case let fragment as GraphQL.FragmentDefinition:
            summary.line("fragment \(fragment.name.value) on \(fragment.typeCondition.name.value)" + directives(fragment.directives))
            try summary.nested { try write(fragment.selectionSet, into: &$0) }
        case let schema as GraphQL.SchemaDefinition:
            write(schema, isExtension: false, into: &summary)
        case let schema as GraphQL.SchemaExtensionDefinition:
            write(schema.definition, isExtension: true, into: &summary)
        case let scalar as GraphQL.ScalarTypeDefinition:
            write(scalar, isExtension: false, into: &summary)
        case let scalar as GraphQL.ScalarExtensionDefinition:
            write(scalar.definition, isExtension: true, into: &summary)
        case let object as GraphQL.ObjectTypeDefinition:
            try write(object, isExtension: false, into: &summary)
        case let object as GraphQL.TypeExtensionDefinition:
            try write(object.definition, isExtension: true, into: &summary)
        case let interface as GraphQL.InterfaceTypeDefinition:
            try write(interface, isExtension: false, into: &summary)
        case let interface as GraphQL.InterfaceExtensionDefinition:
            try write(interface.definition, isExtension: true, into: &summary)
        case let union as GraphQL.UnionTypeDefinition:
            write(union, isExtension: false, into: &summary)
        case let union as GraphQL.UnionExtensionDefinition:
            write(union.definition, isExtension: true, into: &summary)
        case let enumType as GraphQL.EnumTypeDefinition:
            write(enumType, isExtension: false, into: &summary)
        case let enumType as GraphQL.EnumExtensionDefinition:
            write(enumType.definition, isExtension: true, into: &summary)
        case let input as GraphQL.InputObjectTypeDefinition:
            try write(input, isExtension: false, into: &summary)
        case let input as GraphQL.InputObjectExtensionDefinition:
            try write(input.definition, isExtension: true, into: &summary)
        case let directive as GraphQL.DirectiveDefinition:
            summary.line("directive @\(directive.name.value)" + (directive.repeatable ? " repeatable" : "")
                         + " on " + directive.locations.map(\.value).joined(separator: " | "))
            try summary.nested { inner in
                inner.description(directive.description?.value)
                for argument in directive.arguments { try write(argument, as: "argument", into: &inner) }
            }
        default:
            throw UnknownNode(node: definition)
        }
    }

    private static func header(_ kind: String, _ name: GraphQL.Name, isExtension: Bool,
                               interfaces: [GraphQL.NamedType] = [], directives list: [GraphQL.Directive]) -> String {
        var header = (isExtension ? "extend " : "") + kind + " " + name.value
        if !interfaces.isEmpty { header += " implements " + interfaces.map(\.name.value).joined(separator: " & ") }
        return header + directives(list)
    }

    private static func write(_ schema: GraphQL.SchemaDefinition, isExtension: Bool, into summary: inout CanonicalSummary) {
        // The schema's description is left out: normcache's tree has no place for it.
        summary.line((isExtension ? "extend schema" : "schema") + directives(schema.directives))
        summary.nested { inner in
            for root in schema.operationTypes { inner.line("root \(root.operation.rawValue): \(root.type.name.value)") }
        }
    }

    private static func write(_ scalar: GraphQL.ScalarTypeDefinition, isExtension: Bool, into summary: inout CanonicalSummary) {
        summary.line(header("scalar", scalar.name, isExtension: isExtension, directives: scalar.directives))
        summary.nested { $0.description(scalar.description?.value) }
    }

    private static func write(_ object: GraphQL.ObjectTypeDefinition, isExtension: Bool, into summary: inout CanonicalSummary) throws {
        summary.line(header("type", object.name, isExtension: isExtension, interfaces: object.interfaces, directives: object.directives))
        try summary.nested { inner in
            inner.description(object.description?.value)
            for field in object.fields { try write(field, into: &inner) }
        }
    }

    private static func write(_ interface: GraphQL.InterfaceTypeDefinition, isExtension: Bool, into summary: inout CanonicalSummary) throws {
        summary.line(header("interface", interface.name, isExtension: isExtension, interfaces: interface.interfaces,
                            directives: interface.directives))
        try summary.nested { inner in
            inner.description(interface.description?.value)
            for field in interface.fields { try write(field, into: &inner) }
        }
    }

    private static func write(_ union: GraphQL.UnionTypeDefinition, isExtension: Bool, into summary: inout CanonicalSummary) {
        summary.line(header("union", union.name, isExtension: isExtension, directives: union.directives))
        summary.nested { inner in
            inner.description(union.description?.value)
            if !union.types.isEmpty { inner.line("members " + union.types.map(\.name.value).joined(separator: " | ")) }
        }
    }

    private static func write(_ enumType: GraphQL.EnumTypeDefinition, isExtension: Bool, into summary: inout CanonicalSummary) {
        summary.line(header("enum", enumType.name, isExtension: isExtension, directives: enumType.directives))
        summary.nested { inner in
            inner.description(enumType.description?.value)
            for enumValue in enumType.values {
                inner.line("value \(enumValue.name.value)" + directives(enumValue.directives))
                inner.nested { $0.description(enumValue.description?.value) }
            }
        }
    }

    private static func write(_ input: GraphQL.InputObjectTypeDefinition, isExtension: Bool, into summary: inout CanonicalSummary) throws {
        summary.line(header("input", input.name, isExtension: isExtension, directives: input.directives))
        try summary.nested { inner in
            inner.description(input.description?.value)
            for field in input.fields { try write(field, as: "input-field", into: &inner) }
        }
    }

    private static func write(_ field: GraphQL.FieldDefinition, into summary: inout CanonicalSummary) throws {
        summary.line("field \(field.name.value): \(try type(field.type))" + directives(field.directives))
        try summary.nested { inner in
            inner.description(field.description?.value)
            for argument in field.arguments { try write(argument, as: "argument", into: &inner) }
        }
    }

    private static func write(_ input: GraphQL.InputValueDefinition, as kind: String, into summary: inout CanonicalSummary) throws {
        summary.line("\(kind) \(input.name.value): \(try type(input.type))"
                     + Canonical.defaultValue(try input.defaultValue.map(value)) + directives(input.directives))
        summary.nested { $0.description(input.description?.value) }
    }

    private static func write(_ selectionSet: GraphQL.SelectionSet, into summary: inout CanonicalSummary) throws {
        for selection in selectionSet.selections {
            switch selection {
            case let field as GraphQL.Field:
                summary.line("field " + (field.alias.map { $0.value + ":" } ?? "") + field.name.value
                             + Canonical.arguments(try field.arguments.map { ($0.name.value, try value($0.value)) })
                             + directives(field.directives))
                if let selectionSet = field.selectionSet { try summary.nested { try write(selectionSet, into: &$0) } }
            case let spread as GraphQL.FragmentSpread:
                summary.line("spread \(spread.name.value)" + directives(spread.directives))
            case let fragment as GraphQL.InlineFragment:
                summary.line("inline" + (fragment.typeCondition.map { " on " + $0.name.value } ?? "") + directives(fragment.directives))
                try summary.nested { try write(fragment.selectionSet, into: &$0) }
            default:
                throw UnknownNode(node: selection)
            }
        }
    }

    private static func directives(_ directives: [GraphQL.Directive]) -> String {
        // A value the converter does not know shows as `?`, which no normcache value matches.
        Canonical.directives(directives.map { directive in
            (directive.name.value, directive.arguments.map { ($0.name.value, (try? value($0.value)) ?? "?") })
        })
    }

    static func value(_ value: any GraphQL.Value) throws -> String {
        switch value {
        case let variable as GraphQL.Variable: return "$" + variable.name.value
        case let int as GraphQL.IntValue: return "int:" + int.value
        case let float as GraphQL.FloatValue: return "float:" + float.value
        case let string as GraphQL.StringValue: return Canonical.string(string.value)
        case let boolean as GraphQL.BooleanValue: return boolean.value ? "true" : "false"
        case is GraphQL.NullValue: return "null"
        case let enumValue as GraphQL.EnumValue: return "enum:" + enumValue.value
        case let list as GraphQL.ListValue: return "[" + (try list.values.map(self.value)).joined(separator: ", ") + "]"
        case let object as GraphQL.ObjectValue:
            return "{" + (try object.fields.map { "\($0.name.value): \(try self.value($0.value))" }).joined(separator: ", ") + "}"
        default: throw UnknownNode(node: value)
        }
    }

    static func type(_ type: any GraphQL.`Type`) throws -> String {
        switch type {
        case let named as GraphQL.NamedType: return named.name.value
        case let list as GraphQL.ListType: return "[" + (try self.type(list.type)) + "]"
        case let nonNull as GraphQL.NonNullType: return (try self.type(nonNull.type)) + "!"
        default: throw UnknownNode(node: type)
        }
    }
}
