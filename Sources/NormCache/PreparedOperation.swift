/// An operation prepared once and used for many normalizes, writes and reads:
/// parsed, validated (against the schema when one is loaded), and compiled with the
/// schema and key rules in force when it was prepared.
public final class PreparedOperation: Sendable {
    /// The operation's name, if it has one.
    public let name: String?
    /// The document to send to the server: the operation with `__typename` and the
    /// key fields the rules need added (see DESIGN.md, "The network document").
    public let document: String

    let kind: OperationKind
    let rootType: String
    let plan: SelectionPlan
    let variableDefinitions: [VariableDefinition]
    let schema: Schema?
    let keyRules: KeyRules

    /// The record the operation's root fields live in.
    var rootKey: String {
        switch kind {
        case .query: return "QUERY_ROOT"
        case .mutation: return "MUTATION_ROOT"
        case .subscription: return "SUBSCRIPTION_ROOT"
        }
    }

    /// Prepares the operation `operationName` (nil: the only one) of `source`.
    init(source: [UInt8], operationName: String?, schema: Schema?, keyRules: KeyRules) throws(NormCacheError) {
        let document = try GraphQLParser.parseExecutable(source)
        let operation = try DocumentValidation.operation(named: operationName, in: document)
        try DocumentValidation.validate(document, schema: schema)
        let sent = NetworkDocument.complete(document, operation: operation, schema: schema, keyRules: keyRules)
        var fragments: [String: FragmentDefinition] = [:]
        for fragment in sent.fragments { fragments[fragment.name] = fragment }
        let rootType = schema?.rootTypes[operation.kind] ?? Self.defaultRootTypes[operation.kind] ?? "Query"
        var planner = SelectionPlanner(schema: schema, fragments: fragments)
        plan = try planner.plan(sent.operation.selections, parentType: rootType)
        name = operation.name
        kind = operation.kind
        self.rootType = rootType
        variableDefinitions = operation.variables
        self.schema = schema
        self.keyRules = keyRules
        self.document = GraphQLPrinter.print(sent.operation, fragments: sent.fragments)
    }

    private static let defaultRootTypes: [OperationKind: String] = [.query: "Query", .mutation: "Mutation", .subscription: "Subscription"]

    /// The context of one call with `variables` (JSON; empty for none).
    func context(variables: UnsafeRawBufferPointer) throws(NormCacheError) -> SelectionContext {
        SelectionContext(schema: schema, keyRules: keyRules,
                         variables: try Variables(json: variables, declared: variableDefinitions))
    }
}
