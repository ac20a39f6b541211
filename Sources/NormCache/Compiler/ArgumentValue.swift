/// An argument value with its variables resolved, as field storage keys and
/// `@include`/`@skip` need it. Absent variables have been dropped.
indirect enum ArgumentValue: Equatable {
    case null
    case boolean(Bool)
    case int(String)
    case float(String)
    case string(String)
    case enumValue(String)
    case list([ArgumentValue])
    case object([(name: String, value: ArgumentValue)])

    static func == (lhs: ArgumentValue, rhs: ArgumentValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.boolean(let a), .boolean(let b)): return a == b
        case (.int(let a), .int(let b)), (.float(let a), .float(let b)), (.string(let a), .string(let b)), (.enumValue(let a), .enumValue(let b)):
            return a == b
        case (.list(let a), .list(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        default: return false
        }
    }

    /// The value with integers (also in lists) read as floats, for `Float` arguments.
    var asFloat: ArgumentValue {
        switch self {
        case .int(let text): return .float(text)
        case .list(let items): return .list(items.map(\.asFloat))
        default: return self
        }
    }

    /// Resolves a document value against `variables`; nil when it is an absent variable.
    init?(_ value: GraphQLValue, _ variables: Variables) {
        switch value {
        case .variable(let name):
            switch variables.value(of: name) {
            case .json(let index)?:
                guard let document = variables.document else { return nil }
                self.init(json: document, index)
            case .literal(let literal)?:
                self.init(literal, variables)
            case nil:
                return nil
            }
        case .int(let text): self = .int(text)
        case .float(let text): self = .float(text)
        case .string(let text): self = .string(text)
        case .boolean(let flag): self = .boolean(flag)
        case .null: self = .null
        case .enumValue(let name): self = .enumValue(name)
        case .list(let items): self = .list(items.compactMap { ArgumentValue($0, variables) })
        case .object(let fields):
            self = .object(fields.compactMap { field in ArgumentValue(field.value, variables).map { (field.name, $0) } })
        }
    }

    /// The value of a JSON token of the caller's variables.
    init(json document: JSONDocument, _ index: Int) {
        let token = document.tokens[index]
        switch token.kind {
        case .null: self = .null
        case .true: self = .boolean(true)
        case .false: self = .boolean(false)
        case .number:
            let text = String(decoding: document.rawText(index), as: UTF8.self)
            self = text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? .float(text) : .int(text)
        case .string: self = .string(String(decoding: document.stringBytes(index), as: UTF8.self))
        case .array: self = .list(document.elements(ofArray: index).map { ArgumentValue(json: document, $0) })
        case .object:
            self = .object(document.members(ofObject: index).map {
                (String(decoding: document.stringBytes($0.key), as: UTF8.self), ArgumentValue(json: document, $0.value))
            })
        }
    }
}
