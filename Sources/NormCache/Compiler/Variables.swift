/// The variables of one call: the JSON object the caller gave, with the defaults the
/// operation declares. A variable that is neither given nor defaulted is absent.
struct Variables {
    /// The value of one variable.
    enum Value {
        /// A member of the caller's JSON object (a token index of `document`).
        case json(Int)
        /// A default value declared in the document.
        case literal(GraphQLValue)
    }

    /// The caller's JSON, or nil when none was given.
    let document: JSONDocument?
    private let given: [String: Int]
    private let defaults: [String: GraphQLValue]

    /// Parses the caller's JSON variables (empty: none) for an operation's declared
    /// variables; anything but a JSON object is an error (`.json`), and so (all
    /// `.invalidArgument`) is a variable that `declarer` does not declare, a declared
    /// variable that is missing without a default while its type is non-null, or one
    /// whose value does not fit its type (built-in scalars, lists, and with a schema
    /// enums and input objects; custom scalars take any value).
    ///
    /// `declarer` names the operation for the undeclared check
    /// (`variable '$frist' is not declared by operation 'Feed' (it declares: $first)`,
    /// `by the anonymous operation`, `(it declares none)`); nil skips that check, for a
    /// fragment used directly, which declares no variables and uses any.
    init(json bytes: UnsafeRawBufferPointer, declared: [VariableDefinition], declarer: String? = nil,
         schema: Schema? = nil) throws(NormCacheError) {
        var defaults: [String: GraphQLValue] = [:]
        for variable in declared {
            if let value = variable.defaultValue { defaults[variable.name] = value }
        }
        self.defaults = defaults
        guard !bytes.isEmpty else {
            document = nil
            given = [:]
            try Self.checkRequired(declared, given: [:])
            return
        }
        let document = try JSONDocument(scanning: bytes)
        guard document.tokens[document.root].kind == .object else {
            throw NormCacheError(.json, "JSON error at byte \(document.tokens[document.root].offset): variables must be a JSON object")
        }
        var given: [String: Int] = [:]
        for member in document.members(ofObject: document.root) {
            let name = String(decoding: document.stringBytes(member.key), as: UTF8.self)
            if let declarer, !declared.contains(where: { $0.name == name }) {
                let declares = declared.isEmpty ? " none" : ": " + declared.map { "$" + $0.name }.joined(separator: ", ")
                throw NormCacheError(.invalidArgument, "variable '$\(name)' is not declared by \(declarer) (it declares\(declares))")
            }
            given[name] = member.value
        }
        self.document = document
        self.given = given
        try Self.checkRequired(declared, given: given)
        for variable in declared {
            if let index = given[variable.name] {
                try Self.check(document, index, against: variable.type, declared: variable.type, name: "$" + variable.name, schema: schema)
            }
        }
    }

    /// Fails for a non-null variable without a default that is not given.
    private static func checkRequired(_ declared: [VariableDefinition], given: [String: Int]) throws(NormCacheError) {
        for variable in declared where given[variable.name] == nil && variable.defaultValue == nil {
            if case .nonNull = variable.type {
                throw NormCacheError(.invalidArgument, "variable '$\(variable.name)' of type \(GraphQLPrinter.print(variable.type)) is missing")
            }
        }
    }

    /// Checks that the JSON value at `index` fits `type` (GraphQL input coercion: a
    /// single value stands for a list of one).
    private static func check(_ document: JSONDocument, _ index: Int, against type: TypeReference, declared: TypeReference,
                              name: String, schema: Schema?) throws(NormCacheError) {
        let kind = document.tokens[index].kind
        func mismatch() -> NormCacheError {
            NormCacheError(.invalidArgument, "variable '\(name)' must be \(GraphQLPrinter.print(declared)), found \(kind)")
        }
        switch type {
        case .nonNull(let inner):
            guard kind != .null else { throw mismatch() }
            try check(document, index, against: inner, declared: declared, name: name, schema: schema)
        case .list(let inner):
            guard kind != .null else { return }
            guard kind == .array else { return try check(document, index, against: inner, declared: declared, name: name, schema: schema) }
            for (position, element) in document.elements(ofArray: index).enumerated() {
                try check(document, element, against: inner, declared: declared, name: "\(name)[\(position)]", schema: schema)
            }
        case .named(let typeName):
            guard kind != .null else { return }
            let isInteger = kind == .number && !document.rawText(index).contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
            let fits: Bool
            switch typeName {
            case "Int": fits = isInteger
            case "Float": fits = kind == .number
            case "String": fits = kind == .string
            case "Boolean": fits = kind == .true || kind == .false
            case "ID": fits = kind == .string || isInteger
            default:
                switch schema?.type(named: typeName)?.kind {
                case .enum?: fits = kind == .string
                case .input?: fits = kind == .object
                default: fits = true
                }
            }
            guard fits else { throw mismatch() }
        }
    }

    /// The value of `name`: given, else its declared default, else nil (absent).
    func value(of name: String) -> Value? {
        if let index = given[name] { return .json(index) }
        return defaults[name].map { .literal($0) }
    }
}
