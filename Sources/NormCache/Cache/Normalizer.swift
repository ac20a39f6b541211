/// Splits a GraphQL response into records, guided by the operation's selection plan
/// and the key rules (DESIGN.md, "Contracts"): an object with a key becomes the record
/// `<group>:<id>`, one without becomes the record of its path from the nearest keyed
/// ancestor or root (`QUERY_ROOT.hero.friends.0`), and its parent holds a reference.
/// Records below an object are added before the object's own fields, later list
/// elements and later sibling fields after earlier ones: the batch merges in that
/// order, so the later write wins.
///
/// A mutation's response, unless the rules say `storeMutationRoot`, gives no record whose
/// key starts at `MUTATION_ROOT`: neither the root's nor those of the objects without a
/// key below it (`MUTATION_ROOT.login(email:a@b,password:hunter2)`), since those keys hold
/// the root fields' arguments, and the fields' values what the server answered to them
/// (a token). The entities the mutation returns, and the objects without a key below
/// them (`User:1.profile`), are records as in a query. The whole response is still
/// checked. A subscription's root is stored as a query's: its arguments select what to
/// listen to, and reading the last event back through the subscription is what its
/// record is for.
///
/// An object of a type a key rule covers whose key fields the response lacks (or holds
/// as null, a boolean or a composite) is keyed by its path, as Apollo iOS does (Apollo
/// Client throws): the batch counts these fallbacks (`RecordBatch.keyFallbacks`), and
/// with `strictKeys` the first one fails the write, naming the object's path, its type
/// and the key fields it lacks.
///
/// The inner loop works on bytes alone: an object's members are matched to its shape's
/// fields in one pass, their values encoded onto a scratch stack (the objects below
/// encode above them and are gone when done), then copied into the batch in the shape's
/// storage-key order; storage paths grow and shrink in one buffer, and a response path
/// is only spelled out for an error.
struct Normalizer: ~Copyable {
    let context: SelectionContext
    let response: JSONDocument
    /// Whether records keyed by their path from the root (`paths` from 0: the root and
    /// the objects without a key below it) are left out: a mutation's, by default.
    let skipsRootPathRecords: Bool
    /// Whether an object of a keyed type that lacks its key fields fails the write
    /// instead of being keyed by its path.
    let strictKeys: Bool
    /// The records normalized so far.
    private var batch = RecordBatch()

    /// Per field of each object being normalized: its member's value token (-1: none),
    /// then where its encoded value lies: a leaf's in the batch's values, where it is
    /// encoded straight away; a composite value's in `scratch`, since the objects below
    /// it encode theirs meanwhile.
    private struct Slot {
        var token: Int
        var start: Int
        var end: Int
    }

    private var slots = PlainArray<Slot>()
    /// The encoded values of the fields of the objects being normalized.
    private var scratch = ByteBuffer()
    /// Storage paths and the keys of the objects being normalized; the storage path of
    /// the current object's fields starts at `pathStart`.
    private var paths = ByteBuffer()
    private var pathStart = 0
    /// The response path: list indexes (≥ 0) and response keys (`-1 - key id`).
    private var path = PlainArray<Int>()
    /// Looks at the handle's interrupt flag every few hundred objects.
    private var interruptCheck = InterruptCheck()

    private init(context: SelectionContext, response: JSONDocument, skipsRootPathRecords: Bool, strictKeys: Bool) {
        self.context = context
        self.response = response
        self.skipsRootPathRecords = skipsRootPathRecords
        self.strictKeys = strictKeys
    }

    /// The records of `document`: its object at token `data` through `operation`'s plan
    /// as the record `rootKey` — an operation's data (`data` given, typed by the
    /// operation), or a fragment's (`data` nil: the document's root, typed by its
    /// `__typename` when it has one). A mutation's root and the objects without a key
    /// below it give no records unless its rules store the mutation root, or the caller
    /// asks for them (`keepingMutationRoot`, to read a mutation's data back from a
    /// transaction that is dropped). With `strictKeys`, an object keyed by its path for
    /// want of its key fields fails the call (`.data`). Once the data is normalized, its
    /// size is noted on the operation, for a first read to reserve
    /// (`PreparedOperation.noteNormalizedData`). The normalizer, its scratch and the
    /// document's tape are let go when it returns; the records' field keys point into
    /// `context`'s shapes.
    static func records(of document: JSONDocument, at data: Int?, operation: PreparedOperation, rootKey: String,
                        context: SelectionContext, keepingMutationRoot: Bool = false,
                        strictKeys: Bool = false) throws(NormCacheError) -> RecordBatch {
        let isMutation = if case .operation(.mutation) = operation.root, data != nil { true } else { false }
        var normalizer = Normalizer(context: context, response: document,
                                    skipsRootPathRecords: isMutation && !operation.keyRules.storesMutationRoot && !keepingMutationRoot,
                                    strictKeys: strictKeys)
        let object = data ?? document.root
        try normalizer.normalize(data: object, plan: operation.plan, rootKey: rootKey, rootType: operation.rootType,
                                 isOperationRoot: data != nil)
        operation.noteNormalizedData(bytes: document.json(object).count)
        return normalizer.records()
    }

    /// The records, the normalizer given up.
    private consuming func records() -> RecordBatch {
        batch
    }

    /// Normalizes the object `data` as the record `rootKey` of type `rootType`: an
    /// operation's root, or the object a fragment writes (typed by its `__typename`
    /// when it has one).
    private mutating func normalize(data: Int, plan: SelectionPlan, rootKey: String, rootType: String,
                                    isOperationRoot: Bool) throws(NormCacheError) {
        guard response.tokens[data].kind == .object else {
            throw NormCacheError(.data, "invalid response data at data: expected an object, found \(response.tokens[data].kind)")
        }
        paths.append(contentsOf: rootKey.utf8)
        try object(data, plan: Unmanaged.passUnretained(plan), declaredType: context.shapes.typeID(rootType), via: nil,
                   root: isOperationRoot ? .operation : .fragment)
        try batch.finish()
    }

    /// Where an object stands: below a field, or at the root of an operation's data (typed
    /// by the operation) or of a fragment's (typed by its `__typename`).
    private enum Place {
        case field
        case operation
        case fragment
    }

    /// Adds the record of the object at `index`, and the records below it first; below a
    /// field, appends the reference to it to the field's value. The record's key is
    /// `paths[pathStart...]` at the root, and else the object's key, or its storage path.
    private mutating func object(_ index: Int, plan: Unmanaged<SelectionPlan>, declaredType: Int32,
                                 via parent: UnsafeMutablePointer<ObjectShape.Field>?, root: Place = .field) throws(NormCacheError) {
        try interruptCheck.pass()
        // The typename: the response's, or the type the operation or the schema gives.
        var unescaped = ByteBuffer()
        var typename: UnsafeRawBufferPointer?
        let typenameMember = member(named: ObjectShape.typenameKey, of: index)
        if let typenameMember, root != .operation {
            guard response.tokens[typenameMember].kind == .string else {
                throw error(then: .key("__typename"), "__typename must be a string, found \(response.tokens[typenameMember].kind)")
            }
            typename = try response.stringBytes(typenameMember, into: &unescaped)
        } else {
            typename = context.shapes.fallbackTypename(declaredType, rootTyped: root == .operation, schema: context.schema)
        }
        // The shape borrowed, not retained and released an object (the context keeps it).
        try context.shape(plan, typename: typename, declaredType: declaredType, via: parent).borrowing { (shape) throws(NormCacheError) in
            try record(of: index, shape: shape, typename: typename, typenameMember: typenameMember != nil, declaredType: declaredType,
                       root: root)
        }
    }

    /// `object` once the object's shape is known: adds its record (unless `root` is a
    /// left-out path record) and, below a field, appends the reference to it.
    /// `typenameMember`: the response gives the object's `__typename`.
    @inline(__always)
    private mutating func record(of index: Int, shape: ObjectShape, typename: UnsafeRawBufferPointer?, typenameMember: Bool,
                                 declaredType: Int32, root: Place) throws(NormCacheError) {
        if typenameMember, root != .operation, shape.isImpossible, let typename {
            throw error(then: .key("__typename"), "'\(String(decoding: typename, as: UTF8.self))' is not a possible type of \(context.shapes.typeNames[Int(declaredType)])")
        }
        try slots.reserve(shape.fields.count, while: "normalizing an object")
        let frame = slots.append(count: shape.fields.count, filling: Slot(token: -1, start: -1, end: -1))
        defer { slots.truncate(to: frame) }
        matchMembers(of: index, to: shape, frame: frame)

        // The key: at the root the given one; else the key rules', or the storage path.
        let pathMark = paths.count, outerPathStart = pathStart
        defer {
            paths.truncate(to: pathMark)
            pathStart = outerPathStart
        }
        var keyedByRule = false
        if root == .field {
            let keyed = try writeKey(of: index, shape: shape, typename: typename, frame: frame)
            keyedByRule = keyed.byRule
            if keyed.byRule || keyed.byResolver { pathStart = pathMark }
        }
        try paths.check(while: "writing the keys of the records")
        let keyStart = pathStart, keyEnd = paths.count

        // The fields, objects below first.
        let scratchMark = scratch.count
        for fieldIndex in 0..<shape.fields.count {
            let field = shape.fields.baseAddress.assumedPresent + fieldIndex
            let token = slots[frame + fieldIndex].token
            // A leaf `matchMembers` encoded already.
            if slots[frame + fieldIndex].start >= 0 { continue }
            path.append(-1 - Int(field.pointee.responseKeyID))
            defer { path.removeLast() }
            guard token >= 0 else {
                if field.pointee.isAdded { continue }
                throw error("the response has no '\(String(decoding: field.pointee.responseKey, as: UTF8.self))'")
            }
            guard field.pointee.plan != nil else {
                let start = batch.values.count
                try Self.encodeLeaf(token, of: response, field: field, level: 0, shape: shape, path: &path, into: &batch.values)
                slots[frame + fieldIndex].start = start
                slots[frame + fieldIndex].end = batch.values.count
                continue
            }
            let storagePathMark = paths.count
            paths.append(UInt8(ascii: "."))
            paths.append(field.pointee.storageKey)
            let start = scratch.count
            try encode(token, field: field, level: 0, shape: shape)
            paths.truncate(to: storagePathMark)
            slots[frame + fieldIndex].start = start
            slots[frame + fieldIndex].end = scratch.count
        }
        // Key fields the selection lacks are stored too (a rule the network document
        // could not add without a schema).
        var extras: [(keyField: Int, start: Int, end: Int)] = []
        if keyedByRule, let keyRule = shape.keyRule, !keyRule.unselected.isEmpty {
            for keyField in keyRule.unselected {
                guard let member = member(named: keyRule.keyFields[keyField], of: index) else { continue }
                let start = scratch.count
                let (steps, shapes, name) = (path.elements(0..<path.count), context.shapes, keyRule.keyFields[keyField])
                try FieldValue.encode(response, member, into: &scratch,
                                      context: "response path \(shapes.responsePath(steps, then: .key(String(decoding: name, as: UTF8.self))))")
                extras.append((keyField, start, scratch.count))
            }
        }

        // The record, fields in storage-key order: unless its key is a path from a root
        // whose path records are left out.
        try scratch.check(while: "encoding the values of the records")
        try paths.check(while: "writing the keys of the records")
        let key = UnsafeRawBufferPointer(start: paths.start.assumedPresent + keyStart, count: keyEnd - keyStart)
        if !(skipsRootPathRecords && keyStart == 0) {
            try addRecord(key: key, shape: shape, frame: frame, extras: extras)
        }
        scratch.truncate(to: scratchMark)
        if root == .field {
            scratch.append(FieldValue.Tag.reference.rawValue)
            scratch.appendLengthPrefixed(key)
        }
    }

    /// Adds the record `key` of an object of `shape`: the fields whose values the slots
    /// from `frame` hold, and the unselected key fields of the shape's key rule in
    /// `extras`, in storage-key order.
    private mutating func addRecord(key: UnsafeRawBufferPointer, shape: ObjectShape, frame: Int,
                                    extras: [(keyField: Int, start: Int, end: Int)]) throws(NormCacheError) {
        let runStart = batch.runStart
        let firstOrder = batch.takeOrders(shape.fields.count + extras.count)
        for fieldIndex in shape.storageOrder {
            let slot = slots[frame + Int(fieldIndex)]
            guard slot.token >= 0 else { continue }
            let field = shape.fields.baseAddress.assumedPresent + Int(fieldIndex)
            if field.pointee.plan == nil {
                try batch.appendField(key: field.pointee.storageKey, values: slot.start..<slot.end, order: firstOrder + UInt32(fieldIndex))
            } else {
                try batch.appendField(key: field.pointee.storageKey, copying: scratchBytes(slot.start, slot.end),
                                      order: firstOrder + UInt32(fieldIndex))
            }
        }
        for (position, extra) in extras.enumerated() {
            try batch.appendField(key: shape.keyRule.assumedPresent.keyFields[extra.keyField], copying: scratchBytes(extra.start, extra.end),
                                  order: firstOrder + UInt32(shape.fields.count + position))
        }
        try batch.addRecord(key: key, runFrom: runStart, sorted: !shape.hasSharedStorageKeys && extras.isEmpty)
    }

    /// Appends the binary form of a composite field's value to `scratch`: objects as
    /// references to their records, lists element by element. `level` counts the lists
    /// entered within the field's type.
    private mutating func encode(_ index: Int, field: UnsafeMutablePointer<ObjectShape.Field>, level: Int,
                                 shape: ObjectShape) throws(NormCacheError) {
        let token = response.tokens[index]
        if token.kind == .null {
            if field.pointee.type.isNonNull(at: level) {
                throw error("null in a non-null position (\(Self.describe(shape, field, level: level)))")
            }
            scratch.append(FieldValue.Tag.null.rawValue)
            return
        }
        let isList = field.pointee.type.isList(at: level)
        if field.pointee.type.isKnown, isList != (token.kind == .array) {
            throw error("expected \(isList ? "a list" : "an object") (\(Self.describe(shape, field, level: level))), found \(token.kind)")
        }
        switch token.kind {
        case .array:
            let bodyStart = FieldValue.beginContainer(.list, count: token.length, in: &scratch)
            var element = index + 1
            for position in 0..<Int(token.length) {
                path.append(position)
                defer { path.removeLast() }
                let storagePathMark = paths.count
                paths.append(UInt8(ascii: "."))
                paths.appendDecimal(position)
                try encode(element, field: field, level: level + 1, shape: shape)
                paths.truncate(to: storagePathMark)
                element = Int(response.tokens[element].end)
            }
            let (steps, shapes) = (path.elements(0..<path.count), context.shapes)
            try FieldValue.endContainer(bodyStart: bodyStart, in: &scratch, context: "response path \(shapes.responsePath(steps))")
        case .object:
            try object(index, plan: field.pointee.plan.assumedPresent, declaredType: field.pointee.namedType, via: field)
        default:
            throw error("expected an object, found \(token.kind)")
        }
    }

    /// Appends the binary form of a leaf field's value (no sub-selections: a scalar, a
    /// custom scalar or a list of them) to `out`, as it is. `level` counts the lists
    /// entered within the field's type; `path` is the response path, for messages.
    private static func encodeLeaf(_ index: Int, of response: JSONDocument, field: UnsafeMutablePointer<ObjectShape.Field>,
                                   level: Int, shape: ObjectShape, path: inout PlainArray<Int>,
                                   into out: inout ByteBuffer) throws(NormCacheError) {
        let token = response.tokens[index]
        if token.kind == .null {
            guard !field.pointee.type.isNonNull(at: level) else {
                throw error(at: path, shape.memo, "null in a non-null position (\(describe(shape, field, level: level)))")
            }
            out.append(FieldValue.Tag.null.rawValue)
            return
        }
        // A list type (only a known type is one) takes a list, element by element.
        if field.pointee.type.isList(at: level) {
            guard token.kind == .array else {
                throw error(at: path, shape.memo, "expected a list (\(describe(shape, field, level: level))), found \(token.kind)")
            }
            let bodyStart = FieldValue.beginContainer(.list, count: token.length, in: &out)
            var element = index + 1
            for position in 0..<Int(token.length) {
                path.append(position)
                defer { path.removeLast() }
                try encodeLeaf(element, of: response, field: field, level: level + 1, shape: shape, path: &path, into: &out)
                element = Int(response.tokens[element].end)
            }
            let (steps, shapes) = (path.elements(0..<path.count), shape.memo)
            return try FieldValue.endContainer(bodyStart: bodyStart, in: &out, context: "response path \(shapes.responsePath(steps))")
        }
        switch token.kind {
        case .string where !token.hasEscapes:
            out.appendTagged(FieldValue.Tag.string.rawValue, response.rawText(of: token))
        case .number:
            out.appendTagged(FieldValue.Tag.number.rawValue, response.rawText(of: token))
        default:
            let (steps, shapes) = (path.elements(0..<path.count), shape.memo)
            try FieldValue.encode(response, index, into: &out, context: "response path \(shapes.responsePath(steps))")
        }
    }

    /// An error about the response data at `path`.
    private static func error(at path: borrowing PlainArray<Int>, _ shapes: ShapeMemo, _ message: String) -> NormCacheError {
        NormCacheError(.data, "invalid response data at \(shapes.responsePath(path.elements(0..<path.count))): \(message)")
    }

    // MARK: Keys

    /// Writes the object's key at the end of `paths`, by the programmatic rule or the
    /// type's key rule; writes nothing when neither gives one.
    private mutating func writeKey(of index: Int, shape: ObjectShape, typename: UnsafeRawBufferPointer?,
                                   frame: Int) throws(NormCacheError) -> (byResolver: Bool, byRule: Bool) {
        if let resolver = context.keyRules.resolver {
            let typenameText = typename.map { String(decoding: $0, as: UTF8.self) }
            let answer: CacheKeyInfo?
            do {
                answer = try resolver(typenameText, ResponseObject(document: response, index: index))
            } catch let error as NormCacheError {
                throw NormCacheError(.callback, "the key resolver failed at \(currentPath()): \(error.message)")
            } catch {
                throw NormCacheError(.callback, "the key resolver failed at \(currentPath()): \(error)")
            }
            if let answer {
                guard let group = answer.group ?? typenameText else {
                    throw NormCacheError(.callback, "the key resolver gave an id but no group for an object without __typename at \(currentPath())")
                }
                paths.append(contentsOf: group.utf8)
                paths.append(UInt8(ascii: ":"))
                paths.append(contentsOf: answer.id.utf8)
                return (true, false)
            }
        }
        // The rule borrowed, as the shape is.
        guard let rule = shape.keyRule.map(Unmanaged.passUnretained) else { return (false, false) }
        let keyed = try rule.borrowing { (rule) throws(NormCacheError) in
            try writeKey(of: index, rule: rule, typename: typename, frame: frame)
        }
        return (false, keyed)
    }

    /// Writes the object's key by the rule `rule` (borrowed from the object's shape);
    /// whether it gave one.
    @inline(__always)
    private mutating func writeKey(of index: Int, rule: ObjectShape.KeyRule, typename: UnsafeRawBufferPointer?,
                                   frame: Int) throws(NormCacheError) -> Bool {
        guard rule.isUsable else {
            try fallBack(index, rule: rule, typename: typename, frame: frame)
            return false
        }
        let mark = paths.count
        paths.append(rule.group)
        paths.append(UInt8(ascii: ":"))
        for position in rule.keyFields.indices {
            if position > 0 { paths.append(UInt8(ascii: "+")) }
            let value = keyFieldToken(position, of: index, rule: rule, frame: frame)
            switch value < 0 ? .null : response.tokens[value].kind {
            case .string:
                var unescaped = ByteBuffer()
                paths.appendKeyPart(try response.stringBytes(value, into: &unescaped))
            case .number:
                paths.append(response.rawText(value))
            default:
                paths.truncate(to: mark)
                try fallBack(index, rule: rule, typename: typename, frame: frame)
                return false
            }
        }
        return true
    }

    /// The value token of the key field at `position` of `rule` in the object at
    /// `index`, or -1 when the object lacks it.
    private func keyFieldToken(_ position: Int, of index: Int, rule: ObjectShape.KeyRule, frame: Int) -> Int {
        let selected = rule.selectedFields[position]
        return selected >= 0 ? slots[frame + selected].token : member(named: rule.keyFields[position], of: index) ?? -1
    }

    /// Counts an object of a keyed type that is keyed by its path (`paths[pathStart...]`)
    /// for want of its key fields; with `strictKeys`, fails instead, naming the object's
    /// path, its type and what it lacks.
    private mutating func fallBack(_ index: Int, rule: ObjectShape.KeyRule, typename: UnsafeRawBufferPointer?,
                                   frame: Int) throws(NormCacheError) {
        batch.keyFallbacks += 1
        guard strictKeys else { return }
        let type = String(decoding: typename ?? rule.group, as: UTF8.self)
        let names = rule.keyFields.map { "'\(String(decoding: $0, as: UTF8.self))'" }
        let pathKey = String(decoding: UnsafeRawBufferPointer(start: paths.start.map { $0 + pathStart }, count: paths.count - pathStart),
                             as: UTF8.self)
        let lack: String
        if rule.isUsable {
            let lacking = rule.keyFields.indices.compactMap { position -> String? in
                let value = keyFieldToken(position, of: index, rule: rule, frame: frame)
                guard value >= 0 else { return names[position] }
                let kind = response.tokens[value].kind
                return kind == .string || kind == .number ? nil : "\(names[position]) (found \(kind))"
            }
            lack = "lacks its key field\(lacking.count == 1 ? "" : "s") \(lacking.joined(separator: ", "))"
        } else {
            lack = "cannot be keyed by its key fields (\(names.joined(separator: ", "))): "
                + "the selection gives one of their response keys to an alias or a field with arguments"
        }
        throw error("\(type) \(lack); strict keys refuse the fallback to its path key '\(pathKey)'")
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

    // MARK: Members

    /// Notes the value token of each member of the object at `index` in the slot of the
    /// shape's field of its response key (the first member of a name wins). Members
    /// mostly come in the order of the fields: each is tried first against the field
    /// after the one the last member matched.
    ///
    /// The common leaves — numbers, strings without escapes, lists of them where the
    /// field's type is such a list (or unknown) — are encoded into the batch on the way
    /// (they cannot fail); the rest is left to the loop over the fields, in their order,
    /// which reports errors.
    private mutating func matchMembers(of index: Int, to shape: ObjectShape, frame: Int) {
        let count = shape.fields.count
        guard count > 0 else { return }
        var expected = 0
        var keyToken = index + 1
        for _ in 0..<Int(response.tokens[index].length) {
            let valueToken = keyToken + 1
            defer { keyToken = Int(response.tokens[valueToken].end) }
            var found = -1
            let fields = shape.fields.baseAddress.assumedPresent
            if expected < count, Self.keyEquals(keyToken, fields[expected].responseKey, in: response) {
                found = expected
            } else {
                for candidate in 0..<count where Self.keyEquals(keyToken, fields[candidate].responseKey, in: response) {
                    found = candidate
                    break
                }
            }
            guard found >= 0 else { continue }
            // After the last field the first comes next (`__typename`, which the network
            // document adds last, often comes first).
            expected = found + 1 == count ? 0 : found + 1
            guard slots[frame + found].token < 0 else { continue }
            slots[frame + found].token = valueToken
            let field = fields + found
            let type = field.pointee.type
            // A list of one level (or any list of a field without a type) when the type allows it.
            let listDepth = type.isKnown ? type.listDepth : 1
            guard field.pointee.plan == nil, listDepth <= 1 else { continue }
            // A list type's value must be a list: anything else is the full path's error.
            if type.isKnown, listDepth == 1, response.tokens[valueToken].kind != .array { continue }
            let start = batch.values.count
            if FieldValue.encodeSimple(response, valueToken, maxListDepth: listDepth, into: &batch.values) {
                slots[frame + found].start = start
                slots[frame + found].end = batch.values.count
            }
        }
    }

    /// The value token of the first member named `name` of the object at `index`.
    @inline(__always)
    private func member(named name: UnsafeRawBufferPointer, of index: Int) -> Int? {
        Self.member(named: name, of: index, in: response)
    }

    /// `member(named:of:)` of `response`. Static, as `keyEquals(_:_:in:)` is: a method
    /// the compiler keeps out of line is handed a copy of the whole normalizer
    /// (hundreds of bytes) at each call, as a borrow of the caller's `inout self`.
    private static func member(named name: UnsafeRawBufferPointer, of index: Int, in response: JSONDocument) -> Int? {
        var keyToken = index + 1
        for _ in 0..<Int(response.tokens[index].length) {
            if keyEquals(keyToken, name, in: response) { return keyToken + 1 }
            keyToken = Int(response.tokens[keyToken + 1].end)
        }
        return nil
    }

    /// Whether the member key token `keyToken` of `response` decodes to `name`.
    @inline(__always)
    private static func keyEquals(_ keyToken: Int, _ name: UnsafeRawBufferPointer, in response: JSONDocument) -> Bool {
        let token = response.tokens[keyToken]
        if !token.hasEscapes {
            return Int(token.length) == name.count && KeyBytes.equal(response.rawText(keyToken), name)
        }
        return response.string(keyToken, equalsBytes: name)
    }

    private func scratchBytes(_ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
        internalCheck(start >= 0 && start <= end && end <= scratch.count, "scratch bytes \(start)..<\(end) outside 0..<\(scratch.count)")
        return UnsafeRawBufferPointer(start: scratch.start.map { $0 + start }, count: end - start)
    }

    // MARK: Errors

    private func currentPath(then extra: ResponsePathSegment? = nil) -> ResponsePath {
        context.shapes.responsePath(path.elements(0..<path.count), then: extra)
    }

    private func error(then extra: ResponsePathSegment? = nil, _ message: String) -> NormCacheError {
        NormCacheError(.data, "invalid response data at \(currentPath(then: extra)): \(message)")
    }

    /// The type of a field's value at `level` lists in, as GraphQL writes it.
    private static func describe(_ shape: ObjectShape, _ field: UnsafeMutablePointer<ObjectShape.Field>, level: Int) -> String {
        var type = shape.collected[field - shape.fields.baseAddress.assumedPresent].field.type
        for _ in 0..<level {
            if case .nonNull(let inner)? = type { type = inner }
            if case .list(let inner)? = type { type = inner }
        }
        return type.map(GraphQLPrinter.print) ?? "unknown type"
    }
}

extension ByteBuffer {
    /// Appends a key field value with `\` written `\\` and `+` written `\+`.
    mutating func appendKeyPart(_ value: UnsafeRawBufferPointer) {
        guard value.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "+") }) else { return append(value) }
        for byte in value {
            if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "+") { append(UInt8(ascii: "\\")) }
            append(byte)
        }
    }

    /// Appends a non-negative integer in decimal.
    mutating func appendDecimal(_ value: Int) {
        var digits = 1, rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        guard let out = reserve(digits) else { return }
        rest = value
        for position in stride(from: digits - 1, through: 0, by: -1) {
            out.storeBytes(of: UInt8(ascii: "0") + UInt8(rest % 10), toByteOffset: position, as: UInt8.self)
            rest /= 10
        }
        advance(by: digits)
    }
}
