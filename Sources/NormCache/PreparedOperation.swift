import Synchronization

/// An operation prepared once and used for many normalizes, writes and reads:
/// parsed, validated (against the schema when one is loaded), and compiled with the
/// schema and key rules in force when it was prepared. A document of fragments alone
/// prepares one fragment for direct cache access (`readFragment`, `writeFragment`).
public final class PreparedOperation: Sendable {
    /// What the prepared selections start from.
    enum Root: Sendable {
        /// An operation, whose root fields live in `QUERY_ROOT` (or the mutation or
        /// subscription root).
        case operation(OperationKind)
        /// A fragment on a type, read and written at a record key the caller gives.
        case fragment(typeCondition: String)
    }

    /// The operation's or fragment's name, if it has one.
    public let name: String?
    /// The document to send to the server: the operation with `__typename` and the
    /// key fields the rules need added (see DESIGN.md, "The network document"); for a
    /// fragment, the fragment and those it uses, completed alike.
    public let document: String

    let root: Root
    let rootType: String
    let plan: SelectionPlan
    let variableDefinitions: [VariableDefinition]
    let schema: Schema?
    let keyRules: KeyRules
    /// The size of the data the last read of the operation gave, so that the next one
    /// reserves its output at once instead of growing it step by step.
    private let lastOutputSize = Atomic<Int>(0)

    /// The output size to reserve for a read (the last read's size).
    var outputSizeHint: Int {
        get { lastOutputSize.load(ordering: .relaxed) }
        set { lastOutputSize.store(newValue, ordering: .relaxed) }
    }

    /// The record an operation's root fields live in; nil for a fragment.
    var rootKey: String? {
        switch root {
        case .operation(.query): return "QUERY_ROOT"
        case .operation(.mutation): return "MUTATION_ROOT"
        case .operation(.subscription): return "SUBSCRIPTION_ROOT"
        case .fragment: return nil
        }
    }

    /// Prepares the operation `name` (nil: the only one) of `source`; in a document
    /// without operations, the fragment `name` (nil: the only one).
    init(source: [UInt8], operationName: String?, schema: Schema?, keyRules: KeyRules) throws(NormCacheError) {
        let document = try GraphQLParser.parseExecutable(source)
        let hasOperations = document.definitions.contains { if case .operation = $0 { return true } else { return false } }
        let operation: OperationDefinition
        if hasOperations {
            operation = try DocumentValidation.operation(named: operationName, in: document)
            try DocumentValidation.validate(document, schema: schema)
            root = .operation(operation.kind)
            rootType = schema?.rootTypes[operation.kind] ?? Self.defaultRootTypes[operation.kind] ?? "Query"
            name = operation.name
            variableDefinitions = operation.variables
        } else {
            let fragment = try Self.fragment(named: operationName, in: document)
            try DocumentValidation.validate(document, schema: schema, rootFragment: fragment.name)
            operation = OperationDefinition(kind: .query, name: nil, variables: [], directives: [],
                                            selections: [.fragmentSpread(FragmentSpread(name: fragment.name, directives: [],
                                                                                        location: fragment.location))],
                                            location: fragment.location)
            root = .fragment(typeCondition: fragment.typeCondition)
            rootType = fragment.typeCondition
            name = fragment.name
            variableDefinitions = []
        }
        let sent = NetworkDocument.complete(document, operation: operation, schema: schema, keyRules: keyRules)
        var fragments: [String: FragmentDefinition] = [:]
        for fragment in sent.fragments { fragments[fragment.name] = fragment }
        var planner = SelectionPlanner(schema: schema, fragments: fragments)
        plan = try planner.plan(sent.operation.selections, parentType: rootType)
        self.schema = schema
        self.keyRules = keyRules
        if hasOperations {
            self.document = GraphQLPrinter.print(sent.operation, fragments: sent.fragments)
        } else {
            self.document = sent.fragments.map(GraphQLPrinter.print).joined(separator: "\n\n")
        }
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

    /// The context of one call with `variables` (JSON; empty for none).
    func context(variables: UnsafeRawBufferPointer) throws(NormCacheError) -> SelectionContext {
        SelectionContext(schema: schema, keyRules: keyRules,
                         variables: try Variables(json: variables, declared: variableDefinitions, schema: schema))
    }
}
