/// Entity rules for documents given as JSON, in the `documents` member of the same
/// `configure` object as the key rules:
///
///     {"typePolicies": {"Article": {"keyFields": ["id"]}},
///      "documents": {"typeMember": "__typename",
///                    "prefixes": {"GET /articles": "Article"},
///                    "types": {"Article": {"keyFields": ["id"], "members": {"author": "User"}},
///                              "User": {"keyFields": "id"}}}}
///
/// Every member is optional. `typeMember` names the member that names an object's type;
/// `prefixes` gives the type of the top-level objects of the documents whose keys start
/// with a prefix; `types` gives, by type, key fields (a list of names, or one string of
/// space-separated names; else the key rules') and the types of the objects under its
/// members. What is given is added to the rules, replacing what they said of the same
/// prefix or type. Types of documents need not be types of a loaded schema (a REST API's
/// are often not), so their names are not checked against one. A member of another name,
/// or of another kind of value, is an `.invalidArgument` error at its byte offset.
extension DocumentRules {
    /// The member of a configuration object that holds the document rules.
    static let configurationMember = "documents"

    /// Adds the rules of the `documents` member at `index` of the configuration `reader` reads.
    mutating func configure(_ reader: ConfigurationReader, at index: Int) throws(NormCacheError) {
        let section = Self.configurationMember
        for (name, value) in try reader.members(of: index, section) {
            switch name {
            case "typeMember":
                typeMember = Array(try reader.string(value, "\(section).typeMember").utf8)
            case "prefixes":
                for (prefix, type) in try reader.members(of: value, "\(section).prefixes") {
                    guard !prefix.isEmpty else { throw reader.error("\(section).prefixes has an empty prefix", type) }
                    setType(try reader.string(type, "\(section).prefixes.\(prefix)"), forPrefix: Array(prefix.utf8))
                }
            case "types":
                for (type, rule) in try reader.members(of: value, "\(section).types") {
                    types[type] = try Self.typeRule(reader, rule, "\(section).types.\(type)")
                }
            default:
                throw reader.error("unknown member '\(section).\(name)' (known: typeMember, prefixes, types)", value)
            }
        }
    }

    /// The rule of one type, at `index`, named `what` in errors.
    private static func typeRule(_ reader: ConfigurationReader, _ index: Int, _ what: String) throws(NormCacheError) -> TypeRule {
        var rule = TypeRule()
        for (name, value) in try reader.members(of: index, what) {
            switch name {
            case "keyFields":
                rule.keyFields = try reader.names(value, "\(what).keyFields")
            case "members":
                for (member, type) in try reader.members(of: value, "\(what).members") {
                    rule.members[member] = try reader.string(type, "\(what).members.\(member)")
                }
            default:
                throw reader.error("unknown member '\(what).\(name)' (known: keyFields, members)", value)
            }
        }
        return rule
    }
}
