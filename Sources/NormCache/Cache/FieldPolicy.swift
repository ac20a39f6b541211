/// Field policies (`@fieldPolicy(forField:, keyArgs:)`): on read, a field resolves
/// straight to the records its key arguments name.
enum FieldPolicy {
    /// The record keys a field policy gives `field` on objects of `parentTypename`:
    /// `<declared type or group>:<key arguments joined by +>`. A key argument may be a
    /// path into an input object (`input.id`); one key argument may pass through a list
    /// (`ids`, or `inputs.id` over a list of input objects), giving one key per element.
    /// Nil when no policy applies, the schema does not say the field's type, or the
    /// arguments do not give every part.
    static func keys(_ field: PlannedField, parentTypename: String?, context: SelectionContext) -> PolicyKeys? {
        guard let parentTypename, let keyArgs = context.keyRules.fieldPolicies[parentTypename + "." + field.name],
              let declared = field.type?.namedType else { return nil }
        let group = context.keyRules.policy(for: declared, declaredType: nil, schema: context.schema)?.group ?? declared
        var parts: [[String]] = []
        var listPosition: Int?
        for path in keyArgs {
            let segments = path.split(separator: ".").map(String.init)
            guard let first = segments.first, let argument = field.arguments.first(where: { $0.name == first }),
                  let value = ArgumentValue(argument.value, context.variables),
                  let extracted = keyParts(value, segments.dropFirst()) else { return nil }
            if extracted.isList {
                guard listPosition == nil else { return nil }
                listPosition = parts.count
            }
            parts.append(extracted.parts)
        }
        var fieldType = field.type
        if case .nonNull(let inner)? = fieldType { fieldType = inner }
        var isListField = false
        if case .list? = fieldType { isListField = true }
        guard let listPosition else {
            let key = group + ":" + parts.map { $0[0] }.joined(separator: "+")
            return isListField ? .list([key]) : .single(key)
        }
        guard isListField else { return nil }
        return .list(parts[listPosition].map { element in
            var row = parts.map { $0.first ?? "" }
            row[listPosition] = element
            return group + ":" + row.joined(separator: "+")
        })
    }

    /// The key parts at `path` inside an argument value: one, or one per element when the
    /// path crosses (or ends at) one list; nil when a part is missing or not a scalar.
    private static func keyParts(_ value: ArgumentValue, _ path: ArraySlice<String>) -> (parts: [String], isList: Bool)? {
        if case .list(let items) = value {
            var parts: [String] = []
            for item in items {
                guard let inner = keyParts(item, path), !inner.isList, let part = inner.parts.first else { return nil }
                parts.append(part)
            }
            return (parts, true)
        }
        guard let name = path.first else { return keyPart(value).map { ([$0], false) } }
        guard case .object(let fields) = value, let member = fields.first(where: { $0.name == name }) else { return nil }
        return keyParts(member.value, path.dropFirst())
    }

    private static func keyPart(_ value: ArgumentValue) -> String? {
        switch value {
        case .string(let text), .enumValue(let text): return Normalizer.escapeKeyPart(text)
        case .int(let text), .float(let text): return text
        default: return nil
        }
    }
}

/// The records a field policy resolves a field to.
enum PolicyKeys {
    case single(String)
    case list([String])
}
