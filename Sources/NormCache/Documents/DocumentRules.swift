/// Entity rules for plain JSON documents, in the spirit of normalizr: which objects of a
/// document are entities, so that they are stored as the same records GraphQL data
/// makes (`Article:7`) and a document holds references to them. An Article updated
/// through one endpoint (or one query) then reads updated in every document that holds it.
///
/// An object's type is, in this order:
/// 1. the string value of its `typeMember` member (say `__typename`), when the rules
///    name one and the object has it;
/// 2. the type of its position: for the document's top-level value (or each element of
///    a top-level list), the type of the longest of `prefixes` that starts the document
///    key; for a member of an object of type `T`, the type `types[T].members` gives that
///    member (each element of a list there alike);
/// 3. else none: the object stays in the document as written.
///
/// A typed object is an entity when its type has key fields — `types[T].keyFields`, else
/// the key rules' (`typePolicies`, then `defaultKeyFields`, as for GraphQL objects) — and
/// it has every key field as a string or a number. Its key is built as a GraphQL
/// object's: the key group (a type policy's `uniqueKeyGroup`, else the type) and the key
/// field values joined with `+` (`\` and `+` escaped). Any other object stays in the
/// document, and its members are looked at in turn.
struct DocumentRules {
    /// What the rules say about one type's objects in documents.
    struct TypeRule {
        /// The key fields of its objects; nil: the key rules'.
        var keyFields: [String]?
        /// The types of the objects under its members, by member name.
        var members: [String: String] = [:]
    }

    /// The member whose string value names an object's type; nil: none.
    var typeMember: [UInt8]?
    /// Types of a document's top-level objects by document key prefix, longest prefix first.
    private(set) var prefixes: [(prefix: [UInt8], type: String)] = []
    /// Rules by type name.
    var types: [String: TypeRule] = [:]

    /// No rules: documents are stored as written.
    init() {}

    /// Whether no rule can make an entity of any object.
    var isEmpty: Bool { typeMember == nil && prefixes.isEmpty && types.allSatisfy { $0.value.members.isEmpty } }

    /// Sets the type of the top-level objects of documents whose keys start with `prefix`.
    mutating func setType(_ type: String, forPrefix prefix: [UInt8]) {
        prefixes.removeAll { $0.prefix == prefix }
        prefixes.append((prefix, type))
        prefixes.sort { $0.prefix.count > $1.prefix.count || ($0.prefix.count == $1.prefix.count && $0.prefix.lexicographicallyPrecedes($1.prefix)) }
    }

    /// The type of the top-level objects of the document `key`: that of the longest
    /// prefix of it that the rules name, or nil.
    func topLevelType(ofDocument key: UnsafeRawBufferPointer) -> String? {
        prefixes.first { key.starts(with: $0.prefix) }?.type
    }

    /// The type of the objects under the member `name` of an object of type `type`.
    func memberType(_ name: UnsafeRawBufferPointer, of type: String) -> String? {
        guard let members = types[type]?.members, !members.isEmpty else { return nil }
        return members[String(decoding: name, as: UTF8.self)]
    }
}
