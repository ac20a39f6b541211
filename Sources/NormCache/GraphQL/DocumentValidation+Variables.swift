extension DocumentValidation {
    /// The variable rules (GraphQL specification §5.8.1 and §5.8.3): an operation
    /// defines each variable once (`there can be only one variable named '$v'`, at the
    /// second definition), and defines every variable that it or a fragment it reaches
    /// uses (`variable '$v' is not defined by operation 'Name'`, or `by the anonymous
    /// operation`, at the argument that uses it). Variables defined but not used are
    /// allowed.
    static func checkVariables(_ usage: Usage) throws(NormCacheError) {
        for ((operation, references), reached) in zip(usage.operations, usage.fragmentsReached) {
            var defined: Set<String> = []
            for variable in operation.variables where !defined.insert(variable.name).inserted {
                throw error("there can be only one variable named '$\(variable.name)'", at: variable.location)
            }
            func checkDefined(_ uses: [(name: String, location: SourceLocation)]) throws(NormCacheError) {
                for use in uses where !defined.contains(use.name) {
                    let owner = operation.name.map { "operation '\($0)'" } ?? "the anonymous operation"
                    throw error("variable '$\(use.name)' is not defined by \(owner)", at: use.location)
                }
            }
            try checkDefined(references.variables)
            for position in reached { try checkDefined(usage.fragmentReferences[position].variables) }
        }
    }
}

extension DocumentValidation {
    /// A variable used where the schema expects a value of a known type: an argument, an
    /// input object field or a list element (the expected type of the position, in the
    /// terms of GraphQL specification §5.8.5).
    struct TypedVariableUse {
        /// The variable's name, without `$`.
        var name: String
        /// The type the position expects.
        var expected: TypeReference
        /// Whether the argument or input field the variable fills has a default value
        /// of its own (a list element never has one).
        var hasPositionDefault: Bool
        /// Where the argument that holds the variable is written.
        var location: SourceLocation
    }

    /// The typed variable uses of a document's definitions, gathered by the schema
    /// checks: those of each operation and of each fragment, in document order.
    /// Spreads are not followed.
    struct TypedVariableUses {
        /// The uses directly in each operation, in document order.
        var operations: [[TypedVariableUse]] = []
        /// The uses directly in each fragment, by position.
        var fragments: [[TypedVariableUse]] = []
    }

    /// The rule "All Variable Usages Are Allowed" (GraphQL specification §5.8.5), which
    /// needs a schema: every variable an operation uses, in the operation or a fragment it
    /// reaches, has a type that the position accepts. A nullable variable fits a non-null
    /// position only when the variable or the position has a default (not null); list
    /// and item types must fit level by level; named types must be the same. The error is
    /// at the argument that holds the variable:
    /// `variable '$n' of type 'String' is used in a position expecting type 'Int'`.
    static func checkVariableUsages(_ usage: Usage, typed: TypedVariableUses) throws(NormCacheError) {
        for ((operation, reached), uses) in zip(zip(usage.operations.map(\.operation), usage.fragmentsReached), typed.operations) {
            var variables: [String: VariableDefinition] = [:]
            for variable in operation.variables where variables[variable.name] == nil { variables[variable.name] = variable }
            func checkAllowed(_ uses: [TypedVariableUse]) throws(NormCacheError) {
                for use in uses {
                    guard let variable = variables[use.name],
                          !isAllowed(variable, in: use) else { continue }
                    throw error("variable '$\(use.name)' of type '\(GraphQLPrinter.print(variable.type))' is used in a position expecting type '\(GraphQLPrinter.print(use.expected))'",
                                at: use.location)
                }
            }
            try checkAllowed(uses)
            for position in reached { try checkAllowed(typed.fragments[position]) }
        }
    }

    /// IsVariableUsageAllowed (§5.8.5): whether `variable` may fill the position of `use`.
    private static func isAllowed(_ variable: VariableDefinition, in use: TypedVariableUse) -> Bool {
        guard case .nonNull(let nullablePosition) = use.expected else { return areCompatible(variable.type, use.expected) }
        if case .nonNull = variable.type { return areCompatible(variable.type, use.expected) }
        let hasVariableDefault: Bool
        switch variable.defaultValue {
        case nil, .null?: hasVariableDefault = false
        default: hasVariableDefault = true
        }
        guard hasVariableDefault || use.hasPositionDefault else { return false }
        return areCompatible(variable.type, nullablePosition)
    }

    /// AreTypesCompatible (§5.8.5): whether a value of type `variable` fits a position of
    /// type `position`.
    private static func areCompatible(_ variable: TypeReference, _ position: TypeReference) -> Bool {
        switch (variable, position) {
        case (.nonNull(let variableItem), .nonNull(let positionItem)): return areCompatible(variableItem, positionItem)
        case (_, .nonNull): return false
        case (.nonNull(let nullable), _): return areCompatible(nullable, position)
        case (.list(let variableItem), .list(let positionItem)): return areCompatible(variableItem, positionItem)
        case (.named(let variableName), .named(let positionName)): return variableName == positionName
        case (.list, .named), (.named, .list): return false
        }
    }
}
