/// Compiles a GraphQL document for the cache: parses it, picks the operation (in a
/// document of fragments alone, the fragment), validates it (against the schema when one
/// is loaded), completes the document sent to the server with `__typename` and the key
/// fields the rules need (`NetworkDocument`) and plans its selections
/// (`SelectionPlanner`). `PreparedOperation` keeps what it gives.
struct OperationCompiler {
    /// The schema compiled against, if one is loaded.
    let schema: Schema?
    /// The key rules whose key fields the network document adds.
    let keyRules: KeyRules
    /// The largest document compiled.
    let limits: DocumentLimits

    /// What compiling a document gives.
    struct Compiled {
        /// The operation's or fragment's name, if it has one.
        var name: String?
        /// The document to send to the server.
        var document: String
        /// What the selections start from.
        var root: PreparedOperation.Root
        /// The type of the root object.
        var rootType: String
        /// The plan of the selections.
        var plan: SelectionPlan
        /// The operation's variables.
        var variableDefinitions: [VariableDefinition]
    }

    /// Compiles the operation `operationName` (nil: the only one) of `source`; in a
    /// document without operations, the fragment `operationName` (nil: the only one).
    func compile(_ source: [UInt8], operationName: String?) throws(NormCacheError) -> Compiled {
        let document = try GraphQLParser.parseExecutable(source, limits: limits)
        let hasOperations = document.definitions.contains { if case .operation = $0 { return true } else { return false } }
        let operation: OperationDefinition
        let root: PreparedOperation.Root
        let rootType: String
        let name: String?
        let variableDefinitions: [VariableDefinition]
        let userFragments: DocumentFragments
        if hasOperations {
            operation = try DocumentValidation.operation(named: operationName, in: document)
            userFragments = try DocumentValidation.validate(document, schema: schema)
            root = .operation(operation.kind)
            rootType = schema?.rootTypes[operation.kind] ?? Self.defaultRootTypes[operation.kind] ?? "Query"
            name = operation.name
            variableDefinitions = operation.variables
        } else {
            let fragment = try Self.fragment(named: operationName, in: document)
            userFragments = try DocumentValidation.validate(document, schema: schema, rootFragment: fragment.name)
            operation = OperationDefinition(kind: .query, name: nil, variables: [], directives: [],
                                            selections: [.fragmentSpread(FragmentSpread(name: fragment.name, nameNumber: fragment.nameNumber,
                                                                                        directives: [], location: fragment.location))],
                                            location: fragment.location)
            root = .fragment(typeCondition: fragment.typeCondition)
            rootType = fragment.typeCondition
            name = fragment.name
            variableDefinitions = []
        }
        // Refused before the network document and the plan inline anything.
        try InlinedDepth.check(operation.selections, fragments: userFragments)
        let sent = NetworkDocument.complete(document, operation: operation, schema: schema, keyRules: keyRules)
        let sentFragments = DocumentFragments(sent.fragments, nameCount: document.fragmentNames.count)
        var planner = SelectionPlanner(schema: schema, fragments: sentFragments)
        let plan = try planner.plan(sent.operation.selections, parentType: rootType)
        let printed = hasOperations
            ? GraphQLPrinter.print(sent.operation, fragments: sentFragments)
            : sent.fragments.map(GraphQLPrinter.print).joined(separator: "\n\n")
        return Compiled(name: name, document: printed, root: root, rootType: rootType, plan: plan,
                        variableDefinitions: variableDefinitions)
    }

    private static let defaultRootTypes: [OperationKind: String] = [.query: "Query", .mutation: "Mutation", .subscription: "Subscription"]

    /// The fragment `name` of a document without operations, or its only fragment.
    private static func fragment(named name: String?, in document: GraphQLDocument) throws(NormCacheError) -> FragmentDefinition {
        let fragments = document.definitions.compactMap { definition -> FragmentDefinition? in
            if case .fragment(let fragment) = definition { return fragment } else { return nil }
        }
        if let name {
            guard let fragment = fragments.first(where: { $0.name == name }) else {
                throw NormCacheError(.document, "no operation or fragment named '\(name)' in the document (it has: \(fragments.map(\.name).joined(separator: ", ")))")
            }
            return fragment
        }
        guard fragments.count == 1 else {
            throw NormCacheError(.document, "the document has \(fragments.count) fragments and no operation; name the fragment to use (\(fragments.map(\.name).joined(separator: ", ")))")
        }
        return fragments[0]
    }
}
