/// The checks an executable document passes before it is compiled (GraphQL
/// specification, October 2021, §5: the rules that matter for a cache), and the choice
/// of the operation to run.
///
/// Without a schema, only the rules that need none run: unique operation names, a lone
/// anonymous operation, unique fragment names, known fragments, no fragment cycles,
/// every fragment used, unique and defined variables. With a schema, also the root
/// types, fields, arguments, type conditions, leaf and composite selections, variables
/// used where their type is allowed, and field selection merging (see
/// `DocumentValidation+Schema.swift`, `DocumentValidation+Variables.swift` and
/// `DocumentValidation+Merging.swift`).
///
/// Rules run in about that order (names in document order) and the first problem found
/// is thrown, a `.document` error whose message names the line and column of the
/// offending node:
/// `GraphQL error at line 3, column 5: unknown fragment 'Pilot'`.
enum DocumentValidation {
    /// The operation `name` of `document`, or its only operation when `name` is nil.
    ///
    /// The errors (code `.document`) carry no line and column, since the fault is in the
    /// choice rather than in a node of the document:
    /// `no operation named 'X' in the document (it has: A, B)` (or `(it has none)`),
    /// `the document has 2 operations; name the one to use (A, B)` and
    /// `the document has no operation`. Anonymous operations are listed as
    /// `an anonymous query` (or mutation, subscription).
    static func operation(named name: String?, in document: GraphQLDocument) throws(NormCacheError) -> OperationDefinition {
        let operations = document.definitions.compactMap { definition -> OperationDefinition? in
            guard case .operation(let operation) = definition else { return nil }
            return operation
        }
        let listed = operations.map { $0.name ?? "an anonymous \($0.kind.rawValue)" }.joined(separator: ", ")
        if let name {
            guard let operation = operations.first(where: { $0.name == name }) else {
                let has = operations.isEmpty ? " none" : ": " + listed
                throw NormCacheError(.document, "no operation named '\(name)' in the document (it has\(has))")
            }
            return operation
        }
        switch operations.count {
        case 0: throw NormCacheError(.document, "the document has no operation")
        case 1: return operations[0]
        default: throw NormCacheError(.document, "the document has \(operations.count) operations; name the one to use (\(listed))")
        }
    }

    /// Checks `document` by the rules above; with `schema`, by the schema rules as well.
    /// `rootFragment` names a fragment used directly (for direct cache access), which
    /// counts as used with the fragments it spreads. Returns the document's fragments
    /// (their names are unique once it returns), for the compiler to reuse.
    @discardableResult
    static func validate(_ document: GraphQLDocument, schema: Schema?,
                         rootFragment: String? = nil) throws(NormCacheError) -> DocumentFragments {
        var operations: [OperationDefinition] = []
        var operationNames: Set<String> = []
        let fragments = DocumentFragments(document)
        var position = 0
        for definition in document.definitions {
            switch definition {
            case .operation(let operation):
                if let name = operation.name, !operationNames.insert(name).inserted {
                    throw error("there can be only one operation named '\(name)'", at: operation.location)
                }
                operations.append(operation)
            case .fragment(let fragment):
                // A later fragment of a name has a position other than its name's.
                guard fragments.position(ofName: fragment.nameNumber) == position else {
                    throw error("there can be only one fragment named '\(fragment.name)'", at: fragment.location)
                }
                position += 1
            case .schema, .type, .directive:
                break
            }
        }
        if operations.count > 1, let anonymous = operations.first(where: { $0.name == nil }) {
            throw error("an anonymous operation must be the only operation in the document", at: anonymous.location)
        }
        let usage = Usage(operations: operations, fragments: fragments)
        try checkFragments(usage, rootFragment: rootFragment)
        try checkVariables(usage)
        guard let schema else { return fragments }
        let typed = try checkAgainstSchema(document, fragments: fragments, schema: schema)
        try checkVariableUsages(usage, typed: typed)
        try checkFieldMerging(document, fragments: fragments, schema: schema)
        return fragments
    }

    /// A `.document` error at `location`.
    static func error(_ message: String, at location: SourceLocation) -> NormCacheError {
        NormCacheError(.document, "GraphQL error at \(location): \(message)")
    }
}
