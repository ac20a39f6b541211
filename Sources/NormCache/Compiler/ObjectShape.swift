import Glibc

/// What a selection plan asks of the objects of one typename, within one call, compiled
/// once for the inner loops of the normalizer and the reader: the collected fields
/// (`SelectionContext.collectFields`) with their storage keys resolved, their names as
/// bytes, their types as `TypeShape`s, the orders the records need, the key rule of the
/// typename and the records field policies name. Every byte the loops compare or copy
/// lives in one block the shape owns; nothing in a loop allocates or counts references.
///
/// Shapes are made and kept by `ShapeMemo` for one call: the plans and shapes the
/// fields point to without owning stay alive as long as the memo.
final class ObjectShape {
    /// One collected field.
    struct Field {
        /// The response key's UTF-8 bytes.
        var responseKey: UnsafeRawBufferPointer
        /// The storage key's UTF-8 bytes (arguments resolved with the call's variables).
        var storageKey: UnsafeRawBufferPointer
        /// `,"responseKey":` as read output writes it (without the comma for the first).
        var outputName: UnsafeRawBufferPointer
        /// The merged sub-selections of a composite field; nil for a leaf. Unretained:
        /// `collected` keeps the plan alive, and the inner loops pass it on without
        /// counting references.
        var plan: Unmanaged<SelectionPlan>?
        /// The field's type.
        var type: TypeShape
        /// The named type of the field (`ShapeMemo` type id), -1 when unknown.
        var namedType: Int32
        /// The response key (`ShapeMemo` key id), for response paths.
        var responseKeyID: Int32
        /// Added by the network document: the response may lack it and reads leave it out.
        var isAdded: Bool
        /// `__typename`, which reads answer from the record's typename.
        var isTypename: Bool
        /// The index in `ObjectShape.policyKeys` of the records a field policy names, or -1.
        var policy: Int32
        /// How the field's max age is found (`MaxAgeRules.rule`), before its parent's applies.
        var maxAgeRule: FieldMaxAgeRule
        /// The shape the objects of this field had last (a one-entry cache before the memo;
        /// unretained, as the memo keeps it).
        var lastChild: Unmanaged<ObjectShape>?
        /// How often reads looked the records this field refers to up in their
        /// `RecordCache`, and found them there.
        var cacheLookups: UInt32
        var cacheHits: UInt32

        /// Whether reads should keep the records this field refers to in their
        /// `RecordCache`: until `recordCacheTrial` lookups have found none of them
        /// there (records each referred to once). The elements of a list of
        /// `ListLookahead.minimumCount` or more are looked up without it.
        var usesRecordCache: Bool {
            cacheHits > 0 || cacheLookups < Self.recordCacheTrial
        }

        /// The lookups that decide whether a field's records repeat. Records drawn at
        /// random from N repeat after about √N draws (the birthday bound): the authors
        /// of a million posts, 100,000 of them, repeat within 4,096 posts all but once
        /// in 4,000 reads, where a trial of 64 missed their repeats four times in
        /// five and looked every author up in the file. A lookup that finds nothing
        /// costs a hash probe, a twentieth of the B-tree search it comes before.
        static let recordCacheTrial: UInt32 = 4_096
    }

    /// How the normalizer keys objects of the shape's typename (`KeyRules.policy`).
    final class KeyRule {
        /// The group of the key: the policy's group or the typename.
        let group: UnsafeRawBufferPointer
        /// The response keys whose values form the id.
        let keyFields: [UnsafeRawBufferPointer]
        /// Per key field, the index of the selected field of its response key, or -1.
        let selectedFields: [Int]
        /// False when a key field's response key belongs to another field (an alias, or
        /// the field with arguments): such objects have no key.
        let isUsable: Bool
        /// The key fields the selection lacks, which the record stores as well.
        let unselected: [Int]

        init(group: UnsafeRawBufferPointer, keyFields: [UnsafeRawBufferPointer], selectedFields: [Int], isUsable: Bool,
             unselected: [Int]) {
            self.group = group
            self.keyFields = keyFields
            self.selectedFields = selectedFields
            self.isUsable = isUsable
            self.unselected = unselected
        }
    }

    /// The typename the shape was compiled for (nil: unknown, or it did not matter).
    let typename: UnsafeRawBufferPointer?
    /// The fields in document order.
    let fields: UnsafeMutableBufferPointer<Field>
    /// The collected fields the shape compiles, for messages and slow paths.
    let collected: [CollectedField]
    /// A type condition could not be decided for want of a typename.
    let undecided: Bool
    /// The fields in ascending storage-key order (equal keys in document order).
    let storageOrder: UnsafeMutableBufferPointer<Int32>
    /// Two fields share a storage key (aliases of one field).
    let hasSharedStorageKeys: Bool
    /// The fields a read returns (not added), in document order.
    let outputFields: UnsafeMutableBufferPointer<Int32>
    /// The output fields a read looks up in the record (not field policies), in
    /// ascending storage-key order.
    let lookupOrder: UnsafeMutableBufferPointer<Int32>
    /// Per entry of `lookupOrder`: where the field stood in the last record read
    /// through the shape (the reader looks there first).
    let lastPositions: UnsafeMutableBufferPointer<Int32>
    /// The records that field policies name, per field.
    let policyKeys: [PolicyKeys]
    /// The key rule of the typename; nil when no policy applies.
    let keyRule: KeyRule?
    /// The typename is not a possible type of the declared type (the schema says so).
    let isImpossible: Bool
    /// The typename for `__typename` when a record stores none: the declared type when
    /// the schema says it is an object type (or the root's type for an operation root).
    let fallbackTypename: UnsafeRawBufferPointer?

    private let text: UnsafeMutableRawPointer
    /// The shape whose bytes and orders this one shares (`init(unknownTypenameFrom:)`),
    /// kept alive for them; nil when the shape owns its own.
    private let sharing: ObjectShape?
    /// The memo the shape belongs to (which outlives it), for response paths in messages.
    unowned(unsafe) let memo: ShapeMemo

    /// Compiles `plan` for objects of `typename` where `declaredType` is expected.
    init(plan: SelectionPlan, typename typenameBytes: [UInt8]?, declaredType declaredTypeID: Int32, rootTyped: Bool,
         context: SelectionContext, memo: ShapeMemo) throws(NormCacheError) {
        self.memo = memo
        sharing = nil
        let declaredType = declaredTypeID >= 0 ? memo.typeNames[Int(declaredTypeID)] : nil
        let typenameText = typenameBytes.map { String(decoding: $0, as: UTF8.self) }
        var undecided = false
        let collected = try context.collectFields(plan, typename: typenameText, parentType: declaredType ?? typenameText,
                                              undecided: &undecided)
        self.undecided = undecided
        self.collected = collected

        let count = collected.count
        var policies: [PolicyKeys] = []
        var policyIndex = [Int32](repeating: -1, count: count)
        if !context.keyRules.fieldPolicies.isEmpty {
            for index in 0..<count where !collected[index].isAdded && collected[index].plan != nil {
                guard let keys = FieldPolicy.keys(collected[index].field, parentTypename: typenameText ?? declaredType,
                                                  context: context) else { continue }
                policyIndex[index] = Int32(policies.count)
                policies.append(keys)
            }
        }
        policyKeys = policies

        fallbackTypename = memo.fallbackTypename(declaredTypeID, rootTyped: rootTyped, schema: context.schema)

        var rule: (group: String, keyFields: [String], isUsable: Bool, unselected: [Int])?
        if let typenameText, let policy = context.keyRules.policy(for: typenameText, declaredType: declaredType, schema: context.schema) {
            let usable = policy.keyFields.allSatisfy { name in
                guard let owner = plan.field(withResponseKey: name) else { return true }
                return owner.name == name && owner.arguments.isEmpty
            }
            rule = (policy.group ?? typenameText, policy.keyFields, usable,
                    policy.keyFields.indices.filter { key in !collected.contains { $0.field.responseKey == policy.keyFields[key] } })
        }
        if let schema = context.schema, let declaredType, let typenameText, schema.type(named: declaredType) != nil,
           schema.type(named: typenameText) != nil {
            isImpossible = !schema.possibleTypes(of: declaredType).contains(typenameText)
        } else {
            isImpossible = false
        }

        // One block for every byte the loops touch, written in place: the typename, the
        // key rule's group and key fields, then each field's response key, storage key
        // and output name (`,"responseKey":`). Ranges into it until it is handed over.
        var block = ByteBuffer(capacity: 64 + collected.reduce(0) { $0 + 3 * $1.field.responseKey.utf8.count + $1.field.name.utf8.count })
        let typenameRange = typenameBytes.map { Self.place($0, in: &block) }
        let groupRange = rule.map { Self.place($0.group.utf8, in: &block) }
        let keyFieldRanges = rule.map { $0.keyFields.map { Self.place($0.utf8, in: &block) } } ?? []
        var fieldRanges: [(response: Range<Int>, storage: Range<Int>, output: Range<Int>)] = []
        fieldRanges.reserveCapacity(count)
        // (Each field is read through `collected[index]`, not copied out: a copy of a
        // `PlannedField` retains every string and array it holds.)
        for index in 0..<count {
            var responseKey = collected[index].field.responseKey
            let response = Self.place(responseKey.utf8, in: &block)
            let storage = Self.place(FieldStorageKey.make(name: collected[index].field.name, arguments: collected[index].field.arguments,
                                                          variables: context.variables,
                                                          floatArguments: collected[index].field.floatArguments).utf8, in: &block)
            let outputStart = block.count
            block.append(UInt8(ascii: ","))
            responseKey.withUTF8 { block.appendQuoted(UnsafeRawBufferPointer($0)) }
            block.append(UInt8(ascii: ":"))
            fieldRanges.append((response, storage, outputStart..<block.count))
        }
        // The fields in storage-key order (equal keys in document order), while the
        // bytes can still be compared in the block.
        let storageBytes = block.bytes
        func storageKey(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storageBytes[fieldRanges[index].storage]) }
        let order = (0..<count).sorted { left, right in
            let ordered = KeyBytes.compare(storageKey(left), storageKey(right))
            return ordered == 0 ? left < right : ordered < 0
        }
        hasSharedStorageKeys = zip(order, order.dropFirst()).contains { KeyBytes.equal(storageKey($0), storageKey($1)) }

        let start = block.takeBlock().start
        text = start
        func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: start + range.lowerBound, count: range.count)
        }
        typename = typenameRange.map(bytes)
        keyRule = rule.map { rule in
            KeyRule(group: bytes(groupRange!), keyFields: keyFieldRanges.map(bytes),
                    selectedFields: rule.keyFields.map { name in collected.firstIndex { $0.field.responseKey == name } ?? -1 },
                    isUsable: rule.isUsable, unselected: rule.unselected)
        }

        let parentTypes = [typenameText, declaredType].compactMap { $0 }
        fields = .allocate(capacity: count)
        for index in 0..<count {
            let namedType = collected[index].field.type?.namedType
            let maxAgeRule = context.maxAgeRules.isEmpty ? FieldMaxAgeRule.defaultMaxAge
                : context.maxAgeRules.rule(field: collected[index].field.name, parentTypes: parentTypes, fieldType: namedType,
                                           isComposite: collected[index].plan != nil, isRootField: false, schema: context.schema)
            fields.initializeElement(at: index, to: Field(
                responseKey: bytes(fieldRanges[index].response), storageKey: bytes(fieldRanges[index].storage),
                outputName: bytes(fieldRanges[index].output), plan: collected[index].plan.map(Unmanaged.passUnretained),
                type: collected[index].field.typeShape, namedType: namedType.map(memo.typeID) ?? -1,
                responseKeyID: memo.keyID(collected[index].field.responseKey), isAdded: collected[index].isAdded,
                isTypename: collected[index].field.name == "__typename", policy: policyIndex[index], maxAgeRule: maxAgeRule,
                lastChild: nil, cacheLookups: 0, cacheHits: 0))
        }

        storageOrder = Self.buffer(order.lazy.map(Int32.init))
        outputFields = Self.buffer((0..<count).lazy.filter { !collected[$0].isAdded }.map(Int32.init))
        lookupOrder = Self.buffer(order.lazy.filter { !collected[$0].isAdded && policyIndex[$0] < 0 }.map(Int32.init))
        lastPositions = .allocate(capacity: lookupOrder.count)
        lastPositions.initialize(repeating: 0)
    }

    /// The shape of the same plan, declared type and root for an unknown typename, made
    /// from `shape`, one compiled for a typename that made no difference to its fields
    /// (`ShapeMemo.typenameMatters`): what compiling for no typename would give, the
    /// fields and orders of `shape` with no typename, key rule or impossibility, and the
    /// remembered positions and child shapes of its own. The reader asks for such shapes
    /// when nothing it reads depends on the typename, and the normalizer has compiled
    /// the same plan for the response's typenames moments before, in the same call
    /// context: a copy costs two allocations where a compile costs a few hundred.
    init(unknownTypenameFrom shape: ObjectShape) {
        memo = shape.memo
        sharing = shape
        typename = nil
        collected = shape.collected
        undecided = shape.undecided
        text = shape.text
        storageOrder = shape.storageOrder
        hasSharedStorageKeys = shape.hasSharedStorageKeys
        outputFields = shape.outputFields
        lookupOrder = shape.lookupOrder
        policyKeys = shape.policyKeys
        keyRule = nil
        isImpossible = false
        fallbackTypename = shape.fallbackTypename
        fields = .allocate(capacity: shape.fields.count)
        for index in shape.fields.indices {
            var field = shape.fields[index]
            field.lastChild = nil
            field.cacheLookups = 0
            field.cacheHits = 0
            fields.initializeElement(at: index, to: field)
        }
        lastPositions = .allocate(capacity: lookupOrder.count)
        lastPositions.initialize(repeating: 0)
    }

    deinit {
        fields.deallocate()
        lastPositions.deallocate()
        guard sharing == nil else { return }
        storageOrder.deallocate()
        outputFields.deallocate()
        lookupOrder.deallocate()
        free(text)
    }

    /// `__typename` as bytes: the response key and the storage key of an object's typename.
    static var typenameKey: UnsafeRawBufferPointer {
        let name: StaticString = "__typename"
        return UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
    }

    /// Whether the shape was compiled for `typename` (nil: for an unknown typename).
    @inline(__always)
    func matches(_ other: UnsafeRawBufferPointer?) -> Bool {
        guard let other else { return typename == nil }
        guard let typename else { return false }
        return KeyBytes.equal(typename, other)
    }

    private static func buffer(_ elements: some Collection<Int32>) -> UnsafeMutableBufferPointer<Int32> {
        let buffer = UnsafeMutableBufferPointer<Int32>.allocate(capacity: elements.count)
        _ = buffer.initialize(from: elements)
        return buffer
    }

    /// Appends `bytes` to `block`; returns where they are.
    private static func place(_ bytes: some Collection<UInt8>, in block: inout ByteBuffer) -> Range<Int> {
        let start = block.count
        block.append(contentsOf: bytes)
        return start..<block.count
    }
}

/// The shapes of one call, by plan, typename and declared type, and the names they
/// refer to by number (type names, and response keys for response paths).
final class ShapeMemo {
    private struct Key: Hashable {
        let plan: ObjectIdentifier
        let typename: [UInt8]?
        let declaredType: Int32
        let rootTyped: Bool
    }

    /// A plan where a type is declared, whatever the typename.
    private struct PlanKey: Hashable {
        let plan: ObjectIdentifier
        let declaredType: Int32
        let rootTyped: Bool
    }

    private var shapes: [Key: ObjectShape] = [:]
    /// The first shape of each plan compiled for a typename, which the shape of the plan
    /// for an unknown typename is made from when the typename made no difference.
    private var compiledForATypename: [PlanKey: ObjectShape] = [:]
    /// Type names by id.
    private(set) var typeNames: [String] = []
    private var typeIDs: [String: Int32] = [:]
    /// Type names by id as bytes that stay put while the memo lives.
    private var typeNameBytes: [UnsafeRawBufferPointer] = []
    /// Whether each type id is an object type, as far as asked (`isObjectType`).
    private var objectTypes: [Bool?] = []
    /// Response keys by id.
    private(set) var responseKeys: [String] = []
    private var keyIDs: [String: Int32] = [:]

    /// The shape of `plan` for objects of `typename` where the type with id
    /// `declaredType` (-1: none) is expected, made once. Kept out of line: the inner
    /// loops reach it only when a field's last shape does not fit
    /// (`SelectionContext.shape(_:typename:declaredType:rootTyped:via:)`), and inlined
    /// into them it made the 100,000-post read 5 % slower.
    @inline(never)
    func shape(_ plan: SelectionPlan, typename: UnsafeRawBufferPointer?, declaredType: Int32, rootTyped: Bool = false,
               context: SelectionContext) throws(NormCacheError) -> ObjectShape {
        let key = Key(plan: ObjectIdentifier(plan), typename: typename.map(Array.init), declaredType: declaredType, rootTyped: rootTyped)
        if let known = shapes[key] { return known }
        let planKey = PlanKey(plan: key.plan, declaredType: declaredType, rootTyped: rootTyped)
        let made: ObjectShape
        if typename == nil, let compiled = compiledForATypename[planKey], !Self.typenameMatters(plan, context: context) {
            made = ObjectShape(unknownTypenameFrom: compiled)
        } else {
            made = try ObjectShape(plan: plan, typename: key.typename, declaredType: declaredType, rootTyped: rootTyped,
                                   context: context, memo: self)
            if typename != nil, compiledForATypename[planKey] == nil { compiledForATypename[planKey] = made }
        }
        shapes[key] = made
        return made
    }

    /// Whether the typename an object of `plan` has can change what its shape holds
    /// besides the typename, key rule and impossibility: when a group of the plan has a
    /// type condition (the fields collected), a field policy is configured (the records
    /// it names, by parent type) or max-age rules are (a field's rule, by parent type).
    static func typenameMatters(_ plan: SelectionPlan, context: SelectionContext) -> Bool {
        plan.hasTypeConditions || !context.keyRules.fieldPolicies.isEmpty || !context.maxAgeRules.isEmpty
    }

    deinit {
        for bytes in typeNameBytes { free(UnsafeMutableRawPointer(mutating: bytes.baseAddress)) }
    }

    /// The id of a type name.
    func typeID(_ name: String) -> Int32 {
        if let known = typeIDs[name] { return known }
        typeNames.append(name)
        typeIDs[name] = Int32(typeNames.count - 1)
        var bytes = ByteBuffer()
        bytes.append(contentsOf: name.utf8)
        let length = bytes.count
        typeNameBytes.append(UnsafeRawBufferPointer(start: bytes.takeBlock().start, count: length))
        return Int32(typeNames.count - 1)
    }

    /// Whether the type with id `id` is an object type (the schema says so), so that an
    /// object of it needs no typename to know its type; remembered per id.
    func isObjectType(_ id: Int32, schema: Schema?) -> Bool {
        guard id >= 0, let schema else { return false }
        while objectTypes.count <= Int(id) { objectTypes.append(nil) }
        if let known = objectTypes[Int(id)] { return known }
        let answer = schema.type(named: typeNames[Int(id)])?.kind == .object
        objectTypes[Int(id)] = answer
        return answer
    }

    /// The typename of an object whose record or response gives none: for an operation
    /// root (`rootTyped`), its type; else the declared type (id; -1: none) when the
    /// schema says it is an object type.
    func fallbackTypename(_ declaredType: Int32, rootTyped: Bool, schema: Schema?) -> UnsafeRawBufferPointer? {
        guard declaredType >= 0 else { return nil }
        guard rootTyped || schema?.type(named: typeNames[Int(declaredType)])?.kind == .object else { return nil }
        return typeNameBytes[Int(declaredType)]
    }

    /// The response path of `steps`: list indexes (≥ 0) and response keys (`-1 - key
    /// id`), then `extra`.
    func responsePath(_ steps: UnsafeMutableBufferPointer<Int>, then extra: ResponsePathSegment? = nil) -> ResponsePath {
        var segments = steps.map { step -> ResponsePathSegment in step >= 0 ? .index(step) : .key(responseKeys[-1 - step]) }
        if let extra { segments.append(extra) }
        return ResponsePath(segments: segments)
    }

    /// The id of a response key.
    func keyID(_ key: String) -> Int32 {
        // One hash of the key: its entry is found, or made holding the next id.
        let next = Int32(responseKeys.count)
        let id = Self.entry(&keyIDs[key, default: next])
        if id == next { responseKeys.append(key) }
        return id
    }

    /// The value of a dictionary entry, through its `_modify` accessor.
    private static func entry(_ value: inout Int32) -> Int32 { value }
}
