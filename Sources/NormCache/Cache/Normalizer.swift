/// Splits a GraphQL response into records, guided by the operation's selection plan
/// and the key rules (DESIGN.md, "Contracts"): an object with a key becomes the record
/// `<group>:<id>`, one without becomes the record of its path from the nearest keyed
/// ancestor or root (`QUERY_ROOT.hero.friends.0`), and its parent holds a reference.
/// Records below an object are added before the object's own fields, later list
/// elements and later sibling fields after earlier ones: the batch merges in that
/// order, so the later write wins.
struct Normalizer {
    let context: SelectionContext
    let response: JSONDocument
    private(set) var batch = RecordBatch()

    init(context: SelectionContext, response: JSONDocument) {
        self.context = context
        self.response = response
    }

    /// Normalizes the object `data` as the record `rootKey` of type `rootType`: an
    /// operation's root, or the object a fragment writes (typed by its `__typename`
    /// when it has one).
    mutating func normalize(data: Int, plan: SelectionPlan, rootKey: String, rootType: String,
                            isOperationRoot: Bool) throws(NormCacheError) {
        guard response.tokens[data].kind == .object else {
            throw NormCacheError(.data, "invalid response data at data: expected an object, found \(response.tokens[data].kind)")
        }
        let typename = isOperationRoot ? rootType : try self.typename(of: data, declared: rootType, path: ResponsePath())
        try object(data, plan: plan, recordKey: rootKey, typename: typename, parentType: rootType, path: ResponsePath())
        batch.finish()
    }

    /// Adds the record of the object at `index`: its selected fields, then the key
    /// fields its key was made of when the selection lacks them (a rule the network
    /// document could not add without a schema).
    private mutating func object(_ index: Int, plan: SelectionPlan, recordKey: String, typename: String?, parentType: String?,
                                 path: ResponsePath, keyFields: [String] = []) throws(NormCacheError) {
        var undecided = false
        let fields = try context.collectFields(plan, typename: typename, parentType: parentType, undecided: &undecided)
        var own: [(key: [UInt8], value: [UInt8])] = []
        own.reserveCapacity(fields.count)
        for collected in fields {
            let field = collected.field
            guard let member = response.member(field.responseKey.utf8, ofObject: index) else {
                if collected.isAdded { continue }
                throw error(path.appending(.key(field.responseKey)), "the response has no '\(field.responseKey)'")
            }
            let storageKey = field.arguments.isEmpty ? field.name
                : FieldStorageKey.make(name: field.name, arguments: field.arguments, variables: context.variables,
                                       floatArguments: field.floatArguments)
            var value: [UInt8] = []
            try encode(member, plan: collected.plan, type: field.type, storagePath: recordKey + "." + storageKey,
                       path: path.appending(.key(field.responseKey)), into: &value)
            own.append((Array(storageKey.utf8), value))
        }
        for name in keyFields where !fields.contains(where: { $0.field.responseKey == name }) {
            guard let member = response.member(name.utf8, ofObject: index) else { continue }
            var value: [UInt8] = []
            try FieldValue.encode(response, member, into: &value, context: "response path \(path.appending(.key(name)))")
            own.append((Array(name.utf8), value))
        }
        batch.add(recordKey: Array(recordKey.utf8), fields: own)
    }

    /// Appends the binary form of one field value: leaves as they are, objects as
    /// references to their records, lists element by element. The storage and response
    /// paths are made only when needed (an object without a key, an error).
    private mutating func encode(_ index: Int, plan: SelectionPlan?, type: TypeReference?, storagePath: @autoclosure () -> String,
                                 path: @autoclosure () -> ResponsePath, into out: inout [UInt8]) throws(NormCacheError) {
        let token = response.tokens[index]
        var expected = type
        if case .nonNull(let inner)? = type {
            guard token.kind != .null else { throw error(path(), "null in a non-null position (\(Self.describe(type)))") }
            expected = inner
        }
        if token.kind == .null {
            out.append(FieldValue.Tag.null.rawValue)
            return
        }
        var isList = false
        if case .list = expected { isList = true }
        if expected != nil, isList != (token.kind == .array), plan != nil || isList {
            throw error(path(), "expected \(isList ? "a list" : "an object") (\(Self.describe(type))), found \(token.kind)")
        }
        switch token.kind {
        case .array where plan != nil || isList:
            var elementType: TypeReference?
            if case .list(let inner)? = expected { elementType = inner }
            let bodyStart = FieldValue.beginContainer(.list, count: token.length, in: &out)
            for (position, element) in response.elements(ofArray: index).enumerated() {
                try encode(element, plan: plan, type: elementType, storagePath: storagePath() + ".\(position)",
                           path: path().appending(.index(position)), into: &out)
            }
            try FieldValue.endContainer(bodyStart: bodyStart, in: &out, context: "response path \(path())")
        case .object where plan != nil:
            guard let plan else { return }
            let objectPath = path()
            let typename = try self.typename(of: index, declared: expected?.namedType, path: objectPath)
            let keyed = try recordKey(of: index, plan: plan, typename: typename, declaredType: expected?.namedType, path: objectPath)
            let key = keyed?.key ?? storagePath()
            try object(index, plan: plan, recordKey: key, typename: typename, parentType: expected?.namedType ?? typename,
                       path: objectPath, keyFields: keyed?.fields ?? [])
            out.append(FieldValue.Tag.reference.rawValue)
            out.appendLengthPrefixed(key.utf8)
        default:
            guard plan == nil else { throw error(path(), "expected an object, found \(token.kind)") }
            try FieldValue.encode(response, index, into: &out, context: "response path \(path())")
        }
    }

    /// The object's `__typename`, or the declared type when the schema says it is an
    /// object type; nil when neither tells.
    private func typename(of index: Int, declared: String?, path: ResponsePath) throws(NormCacheError) -> String? {
        if let member = response.member("__typename".utf8, ofObject: index) {
            guard response.tokens[member].kind == .string else {
                throw error(path.appending(.key("__typename")), "__typename must be a string, found \(response.tokens[member].kind)")
            }
            let typename = String(decoding: response.stringBytes(member), as: UTF8.self)
            if let declared, let schema = context.schema, schema.type(named: declared) != nil, schema.type(named: typename) != nil,
               !schema.possibleTypes(of: declared).contains(typename) {
                throw error(path.appending(.key("__typename")), "'\(typename)' is not a possible type of \(declared)")
            }
            return typename
        }
        if let declared, context.schema?.type(named: declared)?.kind == .object { return declared }
        return nil
    }

    /// The key of an object by the key rules, and the key fields it was made of: the
    /// programmatic rule's answer first, else
    /// `<group>:<id>` with the id made of the
    /// key fields' values (strings as they are, numbers as written; `\` and `+`
    /// escaped, joined with `+`); nil when a key field is missing or not a string or
    /// number, or its response key belongs to another field (an alias), or no rule applies.
    private func recordKey(of index: Int, plan: SelectionPlan, typename: String?, declaredType: String?,
                           path: ResponsePath) throws(NormCacheError) -> (key: String, fields: [String])? {
        if let resolver = context.keyRules.resolver {
            let answer: CacheKeyInfo?
            do {
                answer = try resolver(typename, ResponseObject(document: response, index: index))
            } catch let error as NormCacheError {
                throw NormCacheError(.callback, "the key resolver failed at \(path): \(error.message)")
            } catch {
                throw NormCacheError(.callback, "the key resolver failed at \(path): \(error)")
            }
            if let answer {
                guard let group = answer.group ?? typename else {
                    throw NormCacheError(.callback, "the key resolver gave an id but no group for an object without __typename at \(path)")
                }
                return (group + ":" + answer.id, [])
            }
        }
        guard let typename,
              let policy = context.keyRules.policy(for: typename, declaredType: declaredType, schema: context.schema) else { return nil }
        var parts: [String] = []
        for field in policy.keyFields {
            // A response key that an alias or a field with arguments owns is not the key field.
            if let owner = plan.field(withResponseKey: field), owner.name != field || !owner.arguments.isEmpty { return nil }
            guard let member = response.member(field.utf8, ofObject: index) else { return nil }
            switch response.tokens[member].kind {
            case .string: parts.append(Self.escapeKeyPart(String(decoding: response.stringBytes(member), as: UTF8.self)))
            case .number: parts.append(String(decoding: response.rawText(member), as: UTF8.self))
            default: return nil
            }
        }
        return ((policy.group ?? typename) + ":" + parts.joined(separator: "+"), policy.keyFields)
    }

    /// A key field value with `\` written `\\` and `+` written `\+`.
    static func escapeKeyPart(_ value: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            if scalar == "\\" || scalar == "+" { escaped.append("\\") }
            escaped.append(scalar)
        }
        return String(escaped)
    }

    private static func describe(_ type: TypeReference?) -> String {
        switch type {
        case .named(let name)?: return name
        case .list(let inner)?: return "[" + describe(inner) + "]"
        case .nonNull(let inner)?: return describe(inner) + "!"
        case nil: return "unknown type"
        }
    }

    private func error(_ path: ResponsePath, _ message: String) -> NormCacheError {
        NormCacheError(.data, "invalid response data at \(path): \(message)")
    }
}
