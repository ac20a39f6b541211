/// Rebuilds an operation's data from the records, guided by its selection plan:
/// references are followed, leaves copied as stored, and whatever is not in the cache
/// — a field, a record, a referenced record — is noted as missing at its response path
/// (a missing record at the path of the reference to it) and read as null. A stored
/// null is data; a stored null in a non-null position is an error.
struct Reader {
    let context: SelectionContext
    let txn: StoreTransaction
    /// The response paths of what the cache lacks, in document order.
    private(set) var missing: [ResponsePath] = []
    /// The data read so far, as JSON.
    private(set) var out: [UInt8] = []
    private var depth = 0

    /// The deepest data a read returns (the JSON limit of what reads it back).
    static let maximumDepth = JSONDocument.maxDepth
    /// The largest data a read returns.
    static let maximumOutput = 1 << 30

    init(context: SelectionContext, txn: StoreTransaction) {
        self.context = context
        self.txn = txn
    }

    /// Reads the record `rootKey` of type `rootType` through `plan` as the data object:
    /// an operation's root (whose typename is its type), or the object of a fragment.
    mutating func read(rootKey: String, rootType: String, plan: SelectionPlan, isOperationRoot: Bool) throws(NormCacheError) {
        try Array(rootKey.utf8).withBytes { (key) throws(NormCacheError) in
            try object(key, plan: plan, parentType: rootType, path: ResponsePath(), isRoot: true, rootTyped: isOperationRoot)
        }
    }

    private mutating func object(_ key: UnsafeRawBufferPointer, plan: SelectionPlan, parentType: String?, path: ResponsePath,
                                 isRoot: Bool = false, rootTyped: Bool = false) throws(NormCacheError) {
        // An operation's root record never written reads as one without fields (field
        // policies may still resolve); any other missing record is missing at its
        // reference (a fragment's, at the root of its data).
        try enter(path)
        defer { depth -= 1 }
        var record: RecordView?
        if let stored = try txn.record(key) {
            guard let view = RecordView(stored) else { throw txn.damaged(key) }
            record = view
        } else if !(isRoot && rootTyped) {
            missing.append(path)
            out.append(contentsOf: "null".utf8)
            return
        }
        let typename = try record.flatMap { (record) throws(NormCacheError) in try storedTypename(record, key) }
            ?? (rootTyped ? parentType : declaredObjectType(parentType))
        var undecided = false
        let fields = try context.collect(plan, typename: typename, parentType: parentType, undecided: &undecided)
        // A type condition the record cannot answer without its __typename: missing data.
        if undecided { missing.append(path.appending(.key("__typename"))) }
        out.append(UInt8(ascii: "{"))
        var written = 0
        for collected in fields where !collected.isAdded {
            let field = collected.field
            if written > 0 { out.append(UInt8(ascii: ",")) }
            written += 1
            JSONString.appendQuoted(field.responseKey.utf8, to: &out)
            out.append(UInt8(ascii: ":"))
            let fieldPath = path.appending(.key(field.responseKey))
            if field.name == "__typename" {
                guard let typename else {
                    missing.append(fieldPath)
                    out.append(contentsOf: "null".utf8)
                    continue
                }
                JSONString.appendQuoted(typename.utf8, to: &out)
                continue
            }
            if let plan = collected.plan, let keys = policyKeys(field, parentTypename: typename ?? parentType) {
                try resolved(keys, plan: plan, type: field.type, path: fieldPath)
                continue
            }
            let storageKey = field.arguments.isEmpty ? field.name
                : FieldStorageKey.make(name: field.name, arguments: field.arguments, variables: context.variables,
                                       floatArguments: field.floatArguments)
            guard let found = record.map({ $0.field(named: storageKey.utf8) }) ?? .some(nil) else { throw txn.damaged(key) }
            guard let stored = found else {
                missing.append(fieldPath)
                out.append(contentsOf: "null".utf8)
                continue
            }
            var reader = ByteReader(stored.value)
            try value(&reader, plan: collected.plan, type: field.type, path: fieldPath, recordKey: key)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends one stored value: leaves as stored, references followed through `plan`.
    private mutating func value(_ reader: inout ByteReader, plan: SelectionPlan?, type: TypeReference?, path: ResponsePath,
                                recordKey: UnsafeRawBufferPointer) throws(NormCacheError) {
        var expected = type
        if case .nonNull(let inner)? = type { expected = inner }
        let start = reader.offset
        guard let tagByte = reader.readByte(), let tag = FieldValue.Tag(rawValue: tagByte) else { throw txn.damaged(recordKey) }
        switch tag {
        case .null:
            if case .nonNull? = type {
                throw NormCacheError(.data, "the cache holds null at \(path), a non-null position")
            }
            out.append(contentsOf: "null".utf8)
        case .reference where plan != nil:
            // An empty key is never written (a reference names a record): the record is damaged.
            guard let plan, let length = reader.readLength(), let key = reader.readBytes(length), !key.isEmpty else {
                throw txn.damaged(recordKey)
            }
            try object(key, plan: plan, parentType: expected?.namedType, path: path)
        case .reference:
            // A reference where the operation selects a leaf: not data it can use.
            guard let length = reader.readLength(), reader.readBytes(length) != nil else { throw txn.damaged(recordKey) }
            missing.append(path)
            out.append(contentsOf: "null".utf8)
        case .list where plan != nil:
            try enter(path)
            defer { depth -= 1 }
            guard let count = reader.readVarint(), let bodyLength = reader.readUInt32(),
                  let body = reader.readBytes(Int(bodyLength)) else { throw txn.damaged(recordKey) }
            var elements = ByteReader(body)
            var elementType: TypeReference?
            if case .list(let inner)? = expected { elementType = inner }
            out.append(UInt8(ascii: "["))
            for position in 0..<count {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                try value(&elements, plan: plan, type: elementType, path: path.appending(.index(Int(position))), recordKey: recordKey)
            }
            out.append(UInt8(ascii: "]"))
        default:
            reader.offset = start
            guard plan == nil else {
                // A scalar stored where the operation selects an object: not data it can use.
                var skipped: [UInt8] = []
                guard FieldValue.appendJSON(from: &reader, to: &skipped) else { throw txn.damaged(recordKey) }
                missing.append(path)
                out.append(contentsOf: "null".utf8)
                return
            }
            var leaf = reader
            guard !FieldValue.containsReference(&leaf) else {
                // A list holding references where the operation selects a leaf.
                var skipped: [UInt8] = []
                guard FieldValue.appendJSON(from: &reader, to: &skipped) else { throw txn.damaged(recordKey) }
                missing.append(path)
                out.append(contentsOf: "null".utf8)
                return
            }
            guard FieldValue.appendJSON(from: &reader, to: &out) else { throw txn.damaged(recordKey) }
        }
    }

    /// One level deeper into the data; the data read is bounded in depth (stored
    /// references may form cycles) and in size.
    private mutating func enter(_ path: ResponsePath) throws(NormCacheError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw NormCacheError(.data, "the data read at \(path) nests deeper than \(Self.maximumDepth) levels")
        }
        guard out.count <= Self.maximumOutput else {
            throw NormCacheError(.data, "the data read is larger than \(Self.maximumOutput >> 20) MiB (at \(path))")
        }
    }

    /// Reads the records a field policy names: one, or a list for a list argument.
    private mutating func resolved(_ keys: PolicyKeys, plan: SelectionPlan, type: TypeReference?, path: ResponsePath) throws(NormCacheError) {
        var elementType = type
        if case .nonNull(let inner)? = type { elementType = inner }
        switch keys {
        case .single(let key):
            try Array(key.utf8).withBytes { (bytes) throws(NormCacheError) in
                try object(bytes, plan: plan, parentType: elementType?.namedType, path: path)
            }
        case .list(let keys):
            out.append(UInt8(ascii: "["))
            for (position, key) in keys.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                try Array(key.utf8).withBytes { (bytes) throws(NormCacheError) in
                    try object(bytes, plan: plan, parentType: elementType?.namedType, path: path.appending(.index(position)))
                }
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    /// The record keys a field policy (`@fieldPolicy(forField:, keyArgs:)`) gives a
    /// field: `<declared type or group>:<key arguments joined by +>`. A key argument may
    /// be a path into an input object (`input.id`); one key argument may pass through a
    /// list (`ids`, or `inputs.id` over a list of input objects), giving one key per
    /// element. Nil when no policy applies, the schema does not say the field's type, or
    /// the arguments do not give every part.
    private func policyKeys(_ field: PlannedField, parentTypename: String?) -> PolicyKeys? {
        guard let parentTypename, let keyArgs = context.keyRules.fieldPolicies[parentTypename + "." + field.name],
              let declared = field.type?.namedType else { return nil }
        let group = context.keyRules.policy(for: declared, declaredType: nil, schema: context.schema)?.group ?? declared
        var parts: [[String]] = []
        var listPosition: Int?
        for path in keyArgs {
            let segments = path.split(separator: ".").map(String.init)
            guard let first = segments.first, let argument = field.arguments.first(where: { $0.name == first }),
                  let value = ArgumentValue(argument.value, context.variables),
                  let extracted = Self.keyParts(value, segments.dropFirst()) else { return nil }
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

    /// The `__typename` a record stores, if any.
    private func storedTypename(_ record: RecordView, _ key: UnsafeRawBufferPointer) throws(NormCacheError) -> String? {
        guard let found = record.field(named: "__typename".utf8) else { throw txn.damaged(key) }
        guard let field = found else { return nil }
        var reader = ByteReader(field.value)
        guard reader.readByte() == FieldValue.Tag.string.rawValue, let length = reader.readLength(),
              let text = reader.readBytes(length) else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// The type when the schema says it is an object type (so it is the typename).
    private func declaredObjectType(_ type: String?) -> String? {
        guard let type, context.schema?.type(named: type)?.kind == .object else { return nil }
        return type
    }
}

/// The records a field policy resolves a field to.
enum PolicyKeys {
    case single(String)
    case list([String])
}
