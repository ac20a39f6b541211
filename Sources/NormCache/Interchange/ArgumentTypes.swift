/// What a schema says of the argument values in field keys, so that an export writes each
/// as the JSON Apollo Client would have: the `ID` `"1000"` as a string, the `Int` `1000`
/// as a number.
struct ArgumentTypes {
    let schema: Schema

    /// The type of the record `key` whose fields are in `document`: the schema's root
    /// type for a root record, else the record's `__typename`; nil when neither says.
    func typeName(ofRecord key: [UInt8], in document: JSONDocument) -> String? {
        let roots: [(key: String, kind: OperationKind)] = [("QUERY_ROOT", .query), ("MUTATION_ROOT", .mutation), ("SUBSCRIPTION_ROOT", .subscription)]
        if let root = roots.first(where: { key.elementsEqual($0.key.utf8) }) { return schema.rootTypes[root.kind] }
        guard let typename = document.member("__typename".utf8, ofObject: document.root), document.tokens[typename].kind == .string
        else { return nil }
        return String(decoding: document.stringBytes(typename), as: UTF8.self)
    }

    /// Whether the value at `path` — an argument's name, then the input-object field names
    /// below it — of field `field` of type `typeName` is text (`String`, `ID` or an enum:
    /// true) or a number or a boolean (`Int`, `Float`, `Boolean`: false); nil when the
    /// schema does not say (an unknown type, field or argument, a custom scalar).
    func isText(typeName: String, field: String, path: [String]) -> Bool? {
        guard let first = path.first, let definition = schema.field(field, on: typeName),
              var type = definition.arguments.first(where: { $0.name == first })?.type.namedType
        else { return nil }
        for name in path.dropFirst() {
            guard let input = schema.type(named: type), input.kind == .input, let member = input.fields[name] else { return nil }
            type = member.type.namedType
        }
        switch type {
        case "String", "ID": return true
        case "Int", "Float", "Boolean": return false
        default: return schema.type(named: type)?.kind == .enum ? true : nil
        }
    }
}
