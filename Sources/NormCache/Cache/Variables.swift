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
    /// variables; anything but a JSON object is an error.
    init(json bytes: UnsafeRawBufferPointer, declared: [VariableDefinition]) throws(NormCacheError) {
        var defaults: [String: GraphQLValue] = [:]
        for variable in declared {
            if let value = variable.defaultValue { defaults[variable.name] = value }
        }
        self.defaults = defaults
        guard !bytes.isEmpty else {
            document = nil
            given = [:]
            return
        }
        let document = try JSONDocument(scanning: bytes)
        guard document.tokens[document.root].kind == .object else {
            throw NormCacheError(.json, "JSON error at byte \(document.tokens[document.root].offset): variables must be a JSON object")
        }
        var given: [String: Int] = [:]
        for member in document.members(ofObject: document.root) {
            given[String(decoding: document.stringBytes(member.key), as: UTF8.self)] = member.value
        }
        self.document = document
        self.given = given
    }

    /// The value of `name`: given, else its declared default, else nil (absent).
    func value(of name: String) -> Value? {
        if let index = given[name] { return .json(index) }
        return defaults[name].map { .literal($0) }
    }
}
