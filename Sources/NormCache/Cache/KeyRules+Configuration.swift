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
extension KeyRules {
    /// Adds the rules of a configuration JSON object.
    mutating func configure(json bytes: UnsafeRawBufferPointer) throws(NormCacheError) {
        let document = try JSONDocument(scanning: bytes)
        let reader = ConfigurationReader(document: document)
        for (section, value) in try reader.members(of: document.root, "the configuration") {
            switch section {
            case "typePolicies":
                for (type, policy) in try reader.members(of: value, "typePolicies") {
                    var keyFields: [String]?
                    var group: String?
                    for (name, setting) in try reader.members(of: policy, "typePolicies.\(type)") {
                        switch name {
                        case "keyFields": keyFields = try reader.names(setting, "typePolicies.\(type).keyFields")
                        case "uniqueKeyGroup": group = try reader.string(setting, "typePolicies.\(type).uniqueKeyGroup")
                        default: throw reader.error("unknown member 'typePolicies.\(type).\(name)' (known: keyFields, uniqueKeyGroup)", setting)
                        }
                    }
                    guard let keyFields else { throw reader.error("typePolicies.\(type) needs keyFields", policy) }
                    typePolicies[type] = TypePolicy(keyFields: keyFields, group: group)
                }
            case "fieldPolicies":
                for (field, policy) in try reader.members(of: value, "fieldPolicies") {
                    guard field.split(separator: ".").count == 2 else {
                        throw reader.error("field policy '\(field)' must be named 'Type.field'", policy)
                    }
                    var keyArgs: [String]?
                    for (name, setting) in try reader.members(of: policy, "fieldPolicies.\(field)") {
                        guard name == "keyArgs" else { throw reader.error("unknown member 'fieldPolicies.\(field).\(name)' (known: keyArgs)", setting) }
                        keyArgs = try reader.names(setting, "fieldPolicies.\(field).keyArgs")
                    }
                    guard let keyArgs else { throw reader.error("fieldPolicies.\(field) needs keyArgs", policy) }
                    fieldPolicies[field] = keyArgs
                }
            case "possibleTypes":
                for (abstract, members) in try reader.members(of: value, "possibleTypes") {
                    possibleTypes[abstract] = Set(try reader.names(members, "possibleTypes.\(abstract)"))
                }
            case "defaultKeyFields":
                defaultKeyFields = document.tokens[value].kind == .null ? nil : try reader.names(value, "defaultKeyFields")
            case "storeMutationRoot":
                storesMutationRoot = try reader.boolean(value, "storeMutationRoot")
            default:
                throw reader.error("unknown configuration member '\(section)' (known: typePolicies, fieldPolicies, possibleTypes, defaultKeyFields, storeMutationRoot)", value)
            }
        }
    }
}

/// Typed access to the members of a configuration document, with errors that name
/// the member and its byte offset.
private struct ConfigurationReader {
    let document: JSONDocument

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

    func error(_ message: String, _ index: Int) -> NormCacheError {
        NormCacheError(.invalidArgument, "configuration error at byte \(document.tokens[index].offset): \(message)")
    }
}
