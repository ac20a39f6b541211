/// Splits a plain JSON document by the document rules (`DocumentRules`): each entity
/// becomes fields of its record (`Article:7`), merged into the batch `entities` as a
/// GraphQL write's objects are, and the document keeps a reference to it in its place;
/// entities inside entities are references in their records. What remains — the
/// document with references for its entities, its `skeleton` — and the members each
/// entity had (`DocumentShape`) are what the document record stores.
///
/// The skeleton is a `FieldValue`: numbers keep their text as written, strings and
/// member names are kept unescaped, objects keep their members in order.
struct DocumentNormalizer: ~Copyable {
    private let document: JSONDocument
    private let rules: KeyRules
    private let schema: Schema?
    /// The key of the document, named in errors.
    private let documentKey: String
    /// The entities' records.
    private(set) var entities = RecordBatch()
    /// How many entity objects the document holds (an entity met twice counts twice).
    private(set) var entityCount = 0
    private var shape = DocumentShape.Builder()
    /// The batch's copy of the member name of each shape node that an entity's member
    /// was under (by node; nil until one was): one copy a name, not one a field.
    private var fieldKeys: [UnsafeRawBufferPointer?] = []
    /// The members of the entities being walked, the innermost entity's last.
    private var entityMembers = PlainArray<EntityMember>()

    /// A member of an entity being walked: its shape node, and where its value lies in
    /// the buffer the walk writes.
    private struct EntityMember: BitwiseCopyable {
        var node: Int
        var valueStart: Int
        var valueEnd: Int
    }

    /// Splits `document`, stored under `key`, by `rules.documents` and the key rules, and
    /// appends its skeleton to `skeleton`.
    init(_ document: JSONDocument, key: UnsafeRawBufferPointer, rules: KeyRules, schema: Schema?,
         skeleton: inout ByteBuffer) throws(NormCacheError) {
        self.document = document
        self.rules = rules
        self.schema = schema
        documentKey = String(decoding: key, as: UTF8.self)
        try walk(document.root, type: rules.documents.topLevelType(ofDocument: key), node: DocumentShape.Builder.top, into: &skeleton)
        try skeleton.check(while: "storing the document '\(KeyBytes.preview(key))'")
        try entities.finish()
    }

    /// Appends the shape of the document (`DocumentShape`) as an encoded object.
    func encodeShape(into out: inout ByteBuffer) throws(NormCacheError) {
        try shape.encode(into: &out)
    }

    /// Appends the skeleton of the value at `index`, whose position has the type `type`
    /// (if any) and the shape node `node`.
    private mutating func walk(_ index: Int, type: String?, node: Int, into out: inout ByteBuffer) throws(NormCacheError) {
        let token = document.tokens[index]
        switch token.kind {
        case .null: out.append(FieldValue.Tag.null.rawValue)
        case .false: out.append(FieldValue.Tag.false.rawValue)
        case .true: out.append(FieldValue.Tag.true.rawValue)
        case .number: out.appendTagged(FieldValue.Tag.number.rawValue, document.rawText(of: token))
        case .string: document.withStringBytes(index) { out.appendTagged(FieldValue.Tag.string.rawValue, $0) }
        case .array:
            let bodyStart = FieldValue.beginContainer(.list, count: token.length, in: &out)
            for element in document.elements(ofArray: index) { try walk(element, type: type, node: node, into: &out) }
            try FieldValue.endContainer(bodyStart: bodyStart, in: &out, context: "the document '\(documentKey)'")
        case .object:
            let objectType = ownType(of: index) ?? type
            let keyStart = out.count
            if let objectType, try appendEntityKey(of: index, type: objectType, into: &out) {
                try addEntity(index, type: objectType, keyFrom: keyStart, node: node, into: &out)
                return
            }
            let bodyStart = FieldValue.beginContainer(.object, count: token.length, in: &out)
            for member in document.members(ofObject: index) {
                var unescaped = ByteBuffer()
                let name = try document.stringBytes(member.key, into: &unescaped)
                out.appendLengthPrefixed(name)
                let child = shape.child(of: node, named: name, onEntity: false)
                try walk(member.value, type: memberType(name, at: child, under: objectType), node: child, into: &out)
            }
            try FieldValue.endContainer(bodyStart: bodyStart, in: &out, context: "the document '\(documentKey)'")
        }
    }

    /// Adds the object at `index`, an entity of `type` whose key `out` holds from
    /// `keyStart` on, as fields of its record: one per member, in order, entities below
    /// it made references. Its values are walked into `out` after the key (a stack: the
    /// values of an entity inside it go after them, and are gone again once that entity
    /// is in the batch), and the key is left as the reference to the entity.
    private mutating func addEntity(_ index: Int, type: String, keyFrom keyStart: Int, node: Int,
                                    into out: inout ByteBuffer) throws(NormCacheError) {
        let keyEnd = out.count
        shape.markEntity(node)
        entityCount += 1
        let membersStart = entityMembers.count
        try entityMembers.reserve(Int(document.tokens[index].length), while: "storing the entities of the document '\(documentKey)'")
        for member in document.members(ofObject: index) {
            var unescaped = ByteBuffer()
            let name = try document.stringBytes(member.key, into: &unescaped)
            guard !name.isEmpty else {
                try out.check(while: "storing the entities of the document '\(documentKey)'")
                let key = String(decoding: UnsafeRawBufferPointer(rebasing: out.bytes[keyStart..<keyEnd]), as: UTF8.self)
                throw NormCacheError(.invalidArgument, "empty member name at byte \(document.tokens[member.key].offset - 1) of the entity '\(key)' in the document '\(documentKey)'")
            }
            let valueStart = out.count
            let child = shape.child(of: node, named: name, onEntity: true)
            try walk(member.value, type: memberType(name, at: child, under: type), node: child, into: &out)
            entityMembers.append(EntityMember(node: child, valueStart: valueStart, valueEnd: out.count))
        }
        try out.check(while: "storing the entities of the document '\(documentKey)'")
        let written = out.bytes
        let runStart = entities.runStart
        var order = entities.takeOrders(entityMembers.count - membersStart)
        for position in membersStart..<entityMembers.count {
            let member = entityMembers[position]
            try entities.appendField(key: fieldKey(of: member.node), copying: UnsafeRawBufferPointer(rebasing: written[member.valueStart..<member.valueEnd]), order: order)
            order += 1
        }
        try entities.addRecord(key: UnsafeRawBufferPointer(rebasing: written[keyStart..<keyEnd]), runFrom: runStart, sorted: false)
        entityMembers.truncate(to: membersStart)
        out.truncate(to: keyEnd)
        out.tagInPlace(FieldValue.Tag.reference.rawValue, from: keyStart)
    }

    /// The field key of an entity's member under the shape node `node`: the batch's copy
    /// of the node's name, made the first time.
    private mutating func fieldKey(of node: Int) throws(NormCacheError) -> UnsafeRawBufferPointer {
        if node < fieldKeys.count, let key = fieldKeys[node] { return key }
        if node >= fieldKeys.count { fieldKeys.append(contentsOf: repeatElement(nil, count: node + 1 - fieldKeys.count)) }
        let key = try shape.name(of: node).withBytes { (name) throws(NormCacheError) in try entities.ownedCopy(of: name) }
        fieldKeys[node] = key
        return key
    }

    /// The type of the objects under the member `name` (shape node `child`) of an object
    /// of type `parentType`: the rules', kept with the node for the last parent type
    /// asked (the members of a list's objects meet the same node again and again).
    private mutating func memberType(_ name: UnsafeRawBufferPointer, at child: Int, under parentType: String?) -> String? {
        guard let parentType else { return nil }
        if let known = shape.memberType(at: child, under: parentType) { return known }
        let type = rules.documents.memberType(name, of: parentType)
        shape.noteMemberType(type, at: child, under: parentType)
        return type
    }

    /// The type the object at `index` names in its type member, if the rules have one.
    private func ownType(of index: Int) -> String? {
        guard let typeMember = rules.documents.typeMember, let value = lastMember(typeMember, of: index),
              document.tokens[value].kind == .string else { return nil }
        let name = document.stringBytes(value)
        return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    }

    /// The value of the last member `name` of the object at `index`: of a name given
    /// twice, the later value is the one its record keeps (and `JSON.parse` gives).
    private func lastMember<Name: Collection>(_ name: Name, of index: Int) -> Int? where Name.Element == UInt8 {
        var found: Int?
        for member in document.members(ofObject: index) where document.string(member.key, equalsBytes: name) { found = member.value }
        return found
    }

    /// Appends the record key of the object at `index` of type `type`: its key group,
    /// `:`, and its key field values joined with `+`; false, with nothing appended, when
    /// the type has no key fields or the object lacks one (or has one that is not a
    /// string or a number).
    private func appendEntityKey(of index: Int, type: String, into out: inout ByteBuffer) throws(NormCacheError) -> Bool {
        let keyFields: [String]
        let group: String
        if let own = rules.documents.types[type]?.keyFields {
            (keyFields, group) = (own, type)
        } else if let policy = rules.policy(for: type, declaredType: nil, schema: schema) {
            (keyFields, group) = (policy.keyFields, policy.group ?? type)
        } else {
            return false
        }
        let start = out.count
        out.append(contentsOf: group.utf8)
        out.append(UInt8(ascii: ":"))
        for (position, name) in keyFields.enumerated() {
            guard let value = lastMember(name.utf8, of: index) else {
                out.truncate(to: start)
                return false
            }
            if position > 0 { out.append(UInt8(ascii: "+")) }
            switch document.tokens[value].kind {
            case .string: document.withStringBytes(value) { out.appendKeyPart($0) }
            case .number: out.append(document.rawText(value))
            default:
                out.truncate(to: start)
                return false
            }
        }
        try out.check(while: "making the key of an entity of the document '\(documentKey)'")
        return true
    }
}
