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
    /// reserves its output at once instead of growing it step by step; before the first
    /// read, the size of the data first normalized through it (0: neither yet).
    private let lastOutputSize = Atomic<Int>(0)
    /// The contexts of ended calls, with the shapes they compiled.
    private let contexts = ContextShelf()

    /// The output size to reserve for a read (the last read's size, or before the first
    /// read the size of the data first normalized through the operation).
    var outputSizeHint: Int {
        get { lastOutputSize.load(ordering: .relaxed) }
        set { lastOutputSize.store(newValue, ordering: .relaxed) }
    }

    /// Notes that `bytes` of JSON data were normalized through the operation: until it is
    /// first read, its reads reserve that much. The data an operation reads back after a
    /// write is that data again, less its whitespace and the fields only the network
    /// document asks for (`__typename`s, key fields), so the first read of a response just
    /// written (a watcher's, a cache-first fetch's) writes its output into one block
    /// instead of doubling one a dozen times over, most times a copy.
    func noteNormalizedData(bytes: Int) {
        _ = lastOutputSize.compareExchange(expected: 0, desired: bytes, ordering: .relaxed)
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

    /// Prepares the operation `operationName` (nil: the only one) of `source`; in a
    /// document without operations, the fragment `operationName` (nil: the only one);
    /// a document past `limits` is refused.
    init(source: [UInt8], operationName: String?, schema: Schema?, keyRules: KeyRules, limits: DocumentLimits) throws(NormCacheError) {
        let compiled = try OperationCompiler(schema: schema, keyRules: keyRules, limits: limits)
            .compile(source, operationName: operationName)
        name = compiled.name
        document = compiled.document
        root = compiled.root
        rootType = compiled.rootType
        plan = compiled.plan
        variableDefinitions = compiled.variableDefinitions
        self.schema = schema
        self.keyRules = keyRules
    }

    /// The context of one call with `variables` (JSON; empty for none), judging reads by
    /// `maxAgeRules`: the one an earlier call with the same variables and rules gave
    /// back (`finished(with:)`), or a new one. An operation refuses a variable it does
    /// not declare; a fragment, which declares none, takes any.
    func context(variables: UnsafeRawBufferPointer, maxAgeRules: MaxAgeRules = MaxAgeRules()) throws(NormCacheError) -> SelectionContext {
        if let kept = contexts.take(variables: variables, maxAgeRules: maxAgeRules) { return kept }
        let declarer: String?
        switch root {
        case .operation: declarer = name.map { "operation '\($0)'" } ?? "the anonymous operation"
        case .fragment: declarer = nil
        }
        // The context outlives the call: its variables are read from a copy it keeps.
        var json = ByteBuffer(capacity: variables.count)
        json.append(variables)
        try json.check(while: "copying the variables")
        let parsed = try Variables(json: json.bytes, declared: variableDefinitions, declarer: declarer, schema: schema)
        return SelectionContext(schema: schema, keyRules: keyRules, variables: parsed, variablesJSON: json, maxAgeRules: maxAgeRules)
    }

    /// Keeps the context of a call that has ended for the next call (see `ContextShelf`).
    /// The call must not use it afterwards.
    func finished(with context: SelectionContext) {
        contexts.giveBack(context)
    }
}
