extension DocumentValidation {
    /// The rules that need a schema (GraphQL specification §5.2–§5.5), each error at the
    /// offending node:
    /// - the schema has the operation's root type: `the schema has no mutation type`;
    /// - every field is defined on its parent type: `field 'nmae' is not defined on type 'Person'`;
    /// - every argument is defined on its field, and on `@include` and `@skip` (`if`):
    ///   `unknown argument 'frist' on field 'Root.allStarships'`,
    ///   `unknown argument 'unless' on directive '@include'`;
    /// - required arguments (non-null, no default) are present, at the field or directive:
    ///   `missing required argument 'id' of field 'Root.node'`,
    ///   `missing required argument 'if' of directive '@skip'`;
    /// - type conditions name a known object, interface or union:
    ///   `unknown type 'Persn' in the type condition of fragment 'F'` (or `of an inline
    ///   fragment`), `type condition 'String' of fragment 'F' is not an object, interface or
    ///   union type`;
    /// - fragments are possible where they are spread: `fragment 'F' on 'Planet' can never
    ///   apply within 'Person'`, `an inline fragment on 'Planet' can never apply within 'Person'`;
    /// - leaf fields have no selection set and others have one:
    ///   `field 'name' of type 'String' cannot have a selection set`,
    ///   `field 'homeworld' of type 'Planet' needs a selection set`.
    ///
    /// Operations are checked against their root type and fragments once, against their
    /// own type condition; spreads are not followed. Returns the variables each
    /// definition uses where the schema expects a type, for `checkVariableUsages`.
    static func checkAgainstSchema(_ document: GraphQLDocument, fragments: DocumentFragments,
                                   schema: Schema) throws(NormCacheError) -> TypedVariableUses {
        var checker = SchemaChecker(schema: schema, fragments: fragments)
        var typed = TypedVariableUses()
        typed.fragments.reserveCapacity(fragments.count)
        for definition in document.definitions {
            switch definition {
            case .operation(let operation):
                guard let root = schema.rootTypes[operation.kind], schema.type(named: root)?.kind == .object else {
                    throw error("the schema has no \(operation.kind.rawValue) type", at: operation.location)
                }
                try checker.check(operation.directives)
                try checker.check(operation.selections, on: root)
                typed.operations.append(checker.takeVariableUses())
            case .fragment(let fragment):
                try checker.checkCondition(fragment.typeCondition, of: "fragment '\(fragment.name)'", at: fragment.location)
                try checker.check(fragment.directives)
                try checker.check(fragment.selections, on: fragment.typeCondition)
                typed.fragments.append(checker.takeVariableUses())
            case .schema, .type, .directive:
                break
            }
        }
        return typed
    }
}

/// Checks selection sets against a schema, remembering which type conditions are
/// possible within which parents (an interface's possible types take a scan of the
/// schema), and gathering the variables used in typed positions on the way.
private struct SchemaChecker {
    /// A type condition within a parent type.
    private struct Placement: Hashable {
        var condition: String
        var parent: String
    }

    let schema: Schema
    let fragments: DocumentFragments
    private var possible: [Placement: Bool] = [:]
    /// The variables used in typed positions since the last `takeVariableUses`.
    private var variableUses: [DocumentValidation.TypedVariableUse] = []

    /// A checker against `schema` of a document with `fragments`.
    init(schema: Schema, fragments: DocumentFragments) {
        self.schema = schema
        self.fragments = fragments
    }

    /// Checks `selections` made on an object of type `parent`.
    mutating func check(_ selections: [Selection], on parent: String) throws(NormCacheError) {
        for selection in selections {
            switch selection {
            case .field(let field):
                try check(field, on: parent)
            case .fragmentSpread(let spread):
                try check(spread.directives)
                guard let fragment = fragments[spread], isComposite(fragment.typeCondition) else { continue }
                guard isPossible(fragment.typeCondition, within: parent) else {
                    throw DocumentValidation.error("fragment '\(spread.name)' on '\(fragment.typeCondition)' can never apply within '\(parent)'",
                                                   at: spread.location)
                }
            case .inlineFragment(let inline):
                try check(inline.directives)
                if let condition = inline.typeCondition {
                    try checkCondition(condition, of: "an inline fragment", at: inline.location)
                    guard isPossible(condition, within: parent) else {
                        throw DocumentValidation.error("an inline fragment on '\(condition)' can never apply within '\(parent)'",
                                                       at: inline.location)
                    }
                }
                try check(inline.selections, on: inline.typeCondition ?? parent)
            }
        }
    }

    /// Checks that `condition`, the type condition of `owner`, is a known composite type.
    /// `owner` is worked out only for an error.
    func checkCondition(_ condition: String, of owner: @autoclosure () -> String, at location: SourceLocation) throws(NormCacheError) {
        guard schema.type(named: condition) != nil else {
            throw DocumentValidation.error("unknown type '\(condition)' in the type condition of \(owner())", at: location)
        }
        guard isComposite(condition) else {
            throw DocumentValidation.error("type condition '\(condition)' of \(owner()) is not an object, interface or union type",
                                           at: location)
        }
    }

    /// The variables used in typed positions since the last call, in document order.
    mutating func takeVariableUses() -> [DocumentValidation.TypedVariableUse] {
        defer { variableUses = [] }
        return variableUses
    }

    /// Checks the arguments of `@include` and `@skip` among `directives`; other
    /// directives are not in the schema model and pass unchecked.
    mutating func check(_ directives: [Directive]) throws(NormCacheError) {
        for directive in directives where directive.name == "include" || directive.name == "skip" {
            try checkArguments(directive.arguments, against: Self.conditionArguments,
                               of: "directive '@\(directive.name)'", at: directive.location)
        }
    }

    /// The arguments of `@include` and `@skip`: `if: Boolean!`.
    private static let conditionArguments = [
        FieldDefinition(name: "if", description: nil, arguments: [], type: .nonNull(.named("Boolean")), defaultValue: nil,
                        directives: [], location: SourceLocation(line: 0, column: 0)),
    ]

    /// Checks `field` selected on `parent`: defined, with defined and required
    /// arguments, a selection set exactly when its type is not a leaf, and what it selects.
    private mutating func check(_ field: Field, on parent: String) throws(NormCacheError) {
        guard let definition = schema.field(field.name, on: parent) else {
            throw DocumentValidation.error("field '\(field.name)' is not defined on type '\(parent)'", at: field.location)
        }
        try checkArguments(field.arguments, against: definition.arguments, of: "field '\(parent).\(field.name)'", at: field.location)
        try check(field.directives)
        let type = definition.type.namedType
        if schema.isLeaf(type) {
            guard field.selections == nil else {
                throw DocumentValidation.error("field '\(field.name)' of type '\(type)' cannot have a selection set", at: field.location)
            }
        } else {
            guard let selections = field.selections else {
                throw DocumentValidation.error("field '\(field.name)' of type '\(type)' needs a selection set", at: field.location)
            }
            try check(selections, on: type)
        }
    }

    /// Checks that every one of `arguments` of `owner` has a definition and that every
    /// required definition (non-null, no default) has an argument; gathers the variables
    /// the arguments use. `owner` is worked out only for an error.
    private mutating func checkArguments(_ arguments: [Argument], against definitions: [FieldDefinition], of owner: @autoclosure () -> String,
                                         at location: SourceLocation) throws(NormCacheError) {
        for argument in arguments {
            guard let definition = definitions.first(where: { $0.name == argument.name }) else {
                throw DocumentValidation.error("unknown argument '\(argument.name)' on \(owner())", at: argument.location)
            }
            gatherVariables(argument.value, expecting: definition.type, hasDefault: definition.defaultValue != nil,
                            at: argument.location)
        }
        for definition in definitions {
            guard case .nonNull = definition.type, definition.defaultValue == nil,
                  !arguments.contains(where: { $0.name == definition.name }) else { continue }
            throw DocumentValidation.error("missing required argument '\(definition.name)' of \(owner())", at: location)
        }
    }

    /// Adds the variables in `value`, a value for a position of type `expected` (with a
    /// default of its own when `hasDefault`): the variable itself, the elements of a list
    /// in a list position, the fields of an input object that the schema defines. A
    /// value of the wrong shape for its position is left alone.
    private mutating func gatherVariables(_ value: GraphQLValue, expecting expected: TypeReference, hasDefault: Bool,
                                          at location: SourceLocation) {
        var nullable = expected
        if case .nonNull(let inner) = expected { nullable = inner }
        switch (value, nullable) {
        case (.variable(let name), _):
            variableUses.append(.init(name: name, expected: expected, hasPositionDefault: hasDefault, location: location))
        case (.list(let items), .list(let item)):
            for element in items { gatherVariables(element, expecting: item, hasDefault: false, at: location) }
        case (.object(let fields), .named(let typeName)):
            guard let type = schema.type(named: typeName), type.kind == .input else { return }
            for field in fields {
                guard let definition = type.fields[field.name] else { continue }
                gatherVariables(field.value, expecting: definition.type, hasDefault: definition.defaultValue != nil, at: location)
            }
        default:
            break
        }
    }

    /// Whether `typeName` is an object, interface or union type of the schema.
    private func isComposite(_ typeName: String) -> Bool {
        switch schema.type(named: typeName)?.kind {
        case .object?, .interface?, .union?: return true
        default: return false
        }
    }

    /// `Schema.fragmentIsPossible`, remembered per placement.
    private mutating func isPossible(_ condition: String, within parent: String) -> Bool {
        let placement = Placement(condition: condition, parent: parent)
        if let known = possible[placement] { return known }
        let answer = schema.fragmentIsPossible(condition, within: parent)
        possible[placement] = answer
        return answer
    }
}
