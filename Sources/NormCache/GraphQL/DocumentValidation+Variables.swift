extension DocumentValidation {
    /// The variable rules (GraphQL specification §5.8.1 and §5.8.3): an operation
    /// defines each variable once (`there can be only one variable named '$v'`, at the
    /// second definition), and defines every variable that it or a fragment it reaches
    /// uses (`variable '$v' is not defined by operation 'Name'`, or `by the anonymous
    /// operation`, at the argument that uses it). Variables defined but not used are
    /// allowed.
    static func checkVariables(_ usage: Usage) throws(NormCacheError) {
        for (operation, references) in usage.operations {
            var defined: Set<String> = []
            for variable in operation.variables where !defined.insert(variable.name).inserted {
                throw error("there can be only one variable named '$\(variable.name)'", at: variable.location)
            }
            let owner = operation.name.map { "operation '\($0)'" } ?? "the anonymous operation"
            let reached = usage.fragmentsReached(from: references).compactMap { usage.fragmentReferences[$0] }
            for uses in [references] + reached {
                for use in uses.variables where !defined.contains(use.name) {
                    throw error("variable '$\(use.name)' is not defined by \(owner)", at: use.location)
                }
            }
        }
    }
}
