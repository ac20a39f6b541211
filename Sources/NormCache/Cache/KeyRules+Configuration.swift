/// Key rules given as JSON, without SDL:
///
///     {"typePolicies": {"Pet": {"keyFields": ["id"], "uniqueKeyGroup": "Pet"}},
///      "fieldPolicies": {"Query.dog": {"keyArgs": ["id"]}},
///      "possibleTypes": {"Pet": ["Dog", "Cat"]},
///      "defaultKeyFields": ["id"],
///      "storeMutationRoot": false}
///
/// Every member is optional; what is given is added to the rules, replacing the
/// policies of the same names. Key fields and arguments may also be one string of
/// space-separated names, as in the directives. `storeMutationRoot: true` brings back
/// Apollo's storing of `MUTATION_ROOT` (see `KeyRules.storesMutationRoot`).
///
/// With a schema, the names are checked against it, with the same checks as the SDL
/// directives (`.schema` errors, at the byte offset of the policy or list at fault): every
/// type that `typePolicies`, `fieldPolicies` and `possibleTypes` name must be a type of
/// the schema (a close name is suggested), key fields fields of their type, a field
/// policy's field a field of its type and its key arguments arguments of that field.
/// Without a schema nothing can be checked.
///
/// The same object may hold the members of the max-age rules (`maxAges`,
/// `defaultMaxAge`), which `MaxAgeRules.configure` reads, and the entity rules of plain
/// JSON documents (`documents`, see `DocumentRules`); any other member is an error.
extension KeyRules {
    /// Adds the rules of a configuration JSON object, checked against `schema` if any.
    mutating func configure(json bytes: UnsafeRawBufferPointer, schema: Schema? = nil) throws(NormCacheError) {
        try configure(document: JSONDocument(scanning: bytes), schema: schema)
    }

    /// Adds the rules of a scanned configuration JSON object, checked against `schema` if any.
    mutating func configure(document: JSONDocument, schema: Schema?) throws(NormCacheError) {
        let reader = ConfigurationReader(document: document, schema: schema)
        for (section, value) in try reader.members(of: document.root, "the configuration") {
            switch section {
            case "typePolicies":
                for (type, policy) in try reader.members(of: value, "typePolicies") {
                    var keyFields: [String]?
                    var keyFieldsAt: Int?
                    var group: String?
                    for (name, setting) in try reader.members(of: policy, "typePolicies.\(type)") {
                        switch name {
                        case "keyFields": keyFields = try reader.names(setting, "typePolicies.\(type).keyFields"); keyFieldsAt = setting
                        case "uniqueKeyGroup": group = try reader.string(setting, "typePolicies.\(type).uniqueKeyGroup")
                        default: throw reader.error("unknown member 'typePolicies.\(type).\(name)' (known: keyFields, uniqueKeyGroup)", setting)
                        }
                    }
                    guard let keyFields else { throw reader.error("typePolicies.\(type) needs keyFields", policy) }
                    if let known = try reader.schemaType(type, "typePolicies", policy),
                       let field = Self.unknownKeyField(keyFields, of: known) {
                        let hint = NameSuggestion.hint(for: field, among: known.fields.keys)
                        throw reader.error("key field '\(field)' of typePolicies.\(type) is not a field of '\(type)'\(hint)", keyFieldsAt ?? policy, code: .schema)
                    }
                    typePolicies[type] = TypePolicy(keyFields: keyFields, group: group)
                }
            case "fieldPolicies":
                for (field, policy) in try reader.members(of: value, "fieldPolicies") {
                    let parts = field.split(separator: ".").map(String.init)
                    guard parts.count == 2 else {
                        throw reader.error("field policy '\(field)' must be named 'Type.field'", policy)
                    }
                    var keyArgs: [String]?
                    var keyArgsAt = policy
                    for (name, setting) in try reader.members(of: policy, "fieldPolicies.\(field)") {
                        guard name == "keyArgs" else { throw reader.error("unknown member 'fieldPolicies.\(field).\(name)' (known: keyArgs)", setting) }
                        keyArgs = try reader.names(setting, "fieldPolicies.\(field).keyArgs"); keyArgsAt = setting
                    }
                    guard let keyArgs else { throw reader.error("fieldPolicies.\(field) needs keyArgs", policy) }
                    if let schema, let known = try reader.schemaType(parts[0], "fieldPolicies", policy) {
                        guard let definition = known.fields[parts[1]] else {
                            let hint = NameSuggestion.hint(for: parts[1], among: known.fields.keys)
                            throw reader.error("fieldPolicies.\(field) names no field of '\(parts[0])'\(hint)", policy, code: .schema)
                        }
                        if let path = Self.unknownKeyArgument(keyArgs, of: definition, in: schema) {
                            throw reader.error("key argument '\(path)' of fieldPolicies.\(field) is not an argument of '\(field)'", keyArgsAt, code: .schema)
                        }
                    }
                    fieldPolicies[field] = keyArgs
                }
            case "possibleTypes":
                for (abstract, members) in try reader.members(of: value, "possibleTypes") {
                    let names = try reader.names(members, "possibleTypes.\(abstract)")
                    _ = try reader.schemaType(abstract, "possibleTypes", members)
                    for name in names { _ = try reader.schemaType(name, "possibleTypes.\(abstract)", members) }
                    possibleTypes[abstract] = Set(names)
                }
            case "defaultKeyFields":
                defaultKeyFields = document.tokens[value].kind == .null ? nil : try reader.names(value, "defaultKeyFields")
            case "storeMutationRoot":
                storesMutationRoot = try reader.boolean(value, "storeMutationRoot")
            case DocumentRules.configurationMember:
                try documents.configure(reader, at: value)
            case _ where MaxAgeRules.configurationMembers.contains(section):
                break
            default:
                let known = ["typePolicies", "fieldPolicies", "possibleTypes", "defaultKeyFields", "storeMutationRoot",
                             DocumentRules.configurationMember] + MaxAgeRules.configurationMembers
                throw reader.error("unknown configuration member '\(section)' (known: \(known.joined(separator: ", ")))", value)
            }
        }
    }
}

/// Typed access to the members of a configuration document, with errors that name
/// the member and its byte offset; key rules and max-age rules read theirs with it.
struct ConfigurationReader {
    let document: JSONDocument
    /// The schema the names are checked against, if any.
    let schema: Schema?

    /// The schema's type `name`; nil without a schema; an error (naming the member
    /// `what` that names the type, and a close type name) when the schema lacks it.
    func schemaType(_ name: String, _ what: String, _ index: Int) throws(NormCacheError) -> Schema.NamedType? {
        guard let schema else { return nil }
        guard let type = schema.type(named: name) else {
            let hint = NameSuggestion.hint(for: name, among: schema.types.keys)
            throw error("\(what) names type '\(name)', which the schema lacks\(hint)", index, code: .schema)
        }
        return type
    }

    func members(of index: Int, _ what: String) throws(NormCacheError) -> [(String, Int)] {
        guard document.tokens[index].kind == .object else { throw error("\(what) must be a JSON object", index) }
        return document.members(ofObject: index).map { (String(decoding: document.stringBytes($0.key), as: UTF8.self), $0.value) }
    }

    func string(_ index: Int, _ what: String) throws(NormCacheError) -> String {
        guard document.tokens[index].kind == .string else { throw error("\(what) must be a string", index) }
        let text = String(decoding: document.stringBytes(index), as: UTF8.self)
        guard !text.isEmpty else { throw error("\(what) must not be empty", index) }
        return text
    }

    /// A JSON `true` or `false`.
    func boolean(_ index: Int, _ what: String) throws(NormCacheError) -> Bool {
        switch document.tokens[index].kind {
        case .true: return true
        case .false: return false
        default: throw error("\(what) must be true or false", index)
        }
    }

    /// A non-empty list of names: a JSON array of strings, or one string of names
    /// separated by spaces.
    func names(_ index: Int, _ what: String) throws(NormCacheError) -> [String] {
        var names: [String] = []
        switch document.tokens[index].kind {
        case .string:
            names = try string(index, what).split(separator: " ").map(String.init)
        case .array:
            for element in document.elements(ofArray: index) { names.append(try string(element, what)) }
        default:
            throw error("\(what) must be an array of strings", index)
        }
        guard !names.isEmpty else { throw error("\(what) must not be empty", index) }
        return names
    }

    /// An error at the token `index`: `.invalidArgument` for the shape of the JSON,
    /// `.schema` for a name the schema lacks (the code of the SDL directives' own checks).
    func error(_ message: String, _ index: Int, code: NormCacheError.Code = .invalidArgument) -> NormCacheError {
        NormCacheError(code, "configuration error at byte \(document.tokens[index].offset): \(message)")
    }
}
