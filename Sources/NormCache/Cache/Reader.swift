import Glibc

/// Rebuilds an operation's data from the records, guided by its selection plan:
/// references are followed, leaves copied as stored, and whatever is not in the cache
/// — a field, a record, a referenced record — is noted as missing at its response path
/// (a missing record at the path of the reference to it) and read as null. A stored
/// null is data; a stored null in a non-null position is an error.
///
/// The inner loop works on bytes alone: each object's fields are found in its record
/// by one merge of two sorted key lists (the shape's and the record's), values are
/// copied from the memory map into one output buffer, records met before are found
/// again in a `RecordCache`, and a response path is only spelled out for a miss or an
/// error.
///
/// Each field used is judged by `FreshnessCheck`: a stale field is a miss (reason
/// `stale` or `invalidated`), or, within the read's `maxStale`, returned and listed in
/// `stale`. A field's max age is resolved along the path (`MaxAgeRules.resolve`) and
/// handed down to the objects it refers to.
struct Reader: ~Copyable {
    let context: SelectionContext
    let txn: StoreTransaction
    /// How the fields read are judged.
    let freshness: FreshnessCheck
    /// What the cache lacks or holds too stale, in document order.
    private(set) var missing: [FieldReport] = []
    /// The stale fields returned, in document order.
    private(set) var stale: [FieldReport] = []
    /// The oldest written-at time and the earliest expiry of the fields `judge` saw (when
    /// `freshness.reports`; `UInt64.max`: none).
    private var oldestWrittenAt = UInt64.max
    private var earliestExpiry = UInt64.max
    /// The oldest written-at time of the fields used, nil when none (or not reported).
    var reportedOldestWrittenAt: UInt64? {
        guard freshness.reports else { return nil }
        let oldest = Swift.min(oldestWrittenAt, freshTimes.oldestWrittenAt)
        return oldest == .max ? nil : oldest
    }
    /// The earliest expiry of the fields used, nil when none expires (or not reported).
    var reportedEarliestExpiry: UInt64? {
        guard freshness.reports else { return nil }
        let earliest = Swift.min(earliestExpiry, freshTimes.earliestExpiry)
        return earliest == .max ? nil : earliest
    }
    /// The data read so far, as JSON.
    var out = ByteBuffer()
    /// What the read used, noted when not nil (a watcher's read).
    var dependencies: ReadDependencies?

    private var depth = 0
    /// Looks at the handle's interrupt flag every few hundred objects.
    private var interruptCheck = InterruptCheck()
    /// The response path: list indexes (≥ 0) and response keys (`-1 - key id`).
    private var path = PlainArray<Int>()
    /// The stored values of the fields of the objects being read, a frame per object,
    /// and their metadata bytes (`FieldMetadata`), in a frame of the same place.
    private var values = PlainArray<UnsafeRawBufferPointer>()
    private var metadata = PlainArray<UnsafeRawBufferPointer>()
    private var records = RecordCache()
    /// How records are found in the transaction.
    private var lookup: RecordLookup
    /// Whether field policies make the fields of an object depend on its typename (max-age
    /// rules do for an object whose declared type is abstract: its concrete type's rules
    /// come first).
    private let needsTypename: Bool
    /// The fields found fresh by their plain written-at times, and those times. Kept after
    /// the fields every read uses: a build with it among them read the feed 10 % slower
    /// without rules, running the same instructions.
    private var freshTimes: FreshTimes

    /// The deepest data a read returns (the JSON limit of what reads it back).
    static let maximumDepth = JSONDocument.maxDepth
    /// The largest data a read returns.
    static let maximumOutput = 1 << 30

    /// A reader whose output starts with `prefix` (the opening of a result that wraps the
    /// data, so that the data is written in place), with room for `expectedBytes`.
    init(context: SelectionContext, txn: StoreTransaction, freshness: FreshnessCheck, expectedBytes: Int = 0,
         prefix: StaticString? = nil) {
        self.context = context
        self.txn = txn
        self.freshness = freshness
        freshTimes = FreshTimes(now: freshness.now)
        lookup = RecordLookup(txn)
        needsTypename = !context.keyRules.fieldPolicies.isEmpty
        // One byte more for the NUL that ends a block handed to a C caller
        // (`ByteBuffer.takeBlock`): without it, data as long as the last read's grew its
        // block at the end (by half, or double under 1 MiB), a copy of the whole result
        // and fresh pages. With a prefix, room for the members that follow the data too
        // (see `RenderedResult`).
        out = ByteBuffer(capacity: Swift.min(expectedBytes, Self.maximumOutput) + 1 + (prefix.map { $0.utf8CodeUnitCount + 512 } ?? 0))
        if let prefix { out.append(UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)) }
    }

    /// Reads the record `rootKey` of type `rootType` through `plan` as the data object:
    /// an operation's root (whose typename is its type), or the object of a fragment.
    mutating func read(rootKey: String, rootType: String, plan: SelectionPlan, isOperationRoot: Bool) throws(NormCacheError) {
        var key = ByteBuffer()
        key.append(contentsOf: rootKey.utf8)
        try object(key.bytes, plan: Unmanaged.passUnretained(plan), declaredType: context.shapes.typeID(rootType), via: nil, remember: false,
                   maxAge: freshness.rootMaxAge, isRoot: true, rootTyped: isOperationRoot)
    }

    /// `found`: what a `ListLookahead` found for the reference, if it looked it up.
    private mutating func object(_ key: UnsafeRawBufferPointer, plan: Unmanaged<SelectionPlan>, declaredType: Int32,
                                 via parent: UnsafeMutablePointer<ObjectShape.Field>?, remember: Bool, maxAge: UInt32,
                                 isRoot: Bool = false, rootTyped: Bool = false,
                                 found: ListLookahead.Found = .notLookedUp) throws(NormCacheError) {
        // An operation's root record never written reads as one without fields (field
        // policies may still resolve); any other missing record is missing at its
        // reference (a fragment's, at the root of its data).
        try enter()
        defer { depth -= 1 }
        var record: RecordView?
        let stored: UnsafeRawBufferPointer?
        switch found {
        case .record(let bytes): stored = bytes
        case .absent: stored = nil
        case .notLookedUp: stored = try find(key, via: remember ? parent : nil)
        }
        if let stored {
            // A record the lookahead found had its lines asked for then.
            if case .notLookedUp = found { CacheLines.prefetch(stored) }
            guard let view = RecordView(stored) else { throw txn.damaged(key) }
            record = view
        } else if !(isRoot && rootTyped) {
            dependencies?.noteRecord(key, present: false)
            noteMissing(.absent, record: key, field: nil)
            out.append("null")
            return
        }
        var typename: UnsafeRawBufferPointer?
        if plan._withUnsafeGuaranteedRef(\.hasTypeConditions) || needsTypename
            || (freshness.needsTypenames && !context.shapes.isObjectType(declaredType, schema: context.schema)) {
            typename = try record.flatMap { (record) throws(NormCacheError) in try storedTypename(record, key) }
                ?? context.shapes.fallbackTypename(declaredType, rootTyped: rootTyped, schema: context.schema)
        }
        // The shape borrowed, not retained and released an object (the context keeps it).
        let shape = try context.shape(plan, typename: typename, declaredType: declaredType, rootTyped: rootTyped, via: parent)
        try shape.borrowing { (shape) throws(NormCacheError) in
            try fields(of: shape, record: record, key: key, readsTypename: typename != nil, maxAge: maxAge, isRoot: isRoot)
        }
    }

    /// Writes the object of record `key` (`record`; nil when the record is not stored)
    /// as `shape` selects it: its fields, each judged fresh or missing, references
    /// followed with `maxAge` handed down. `readsTypename`: the object's typename was
    /// read from the record (a dependency of a watcher's read).
    @inline(__always)
    private mutating func fields(of shape: ObjectShape, record: RecordView?, key: UnsafeRawBufferPointer, readsTypename: Bool,
                                 maxAge: UInt32, isRoot: Bool) throws(NormCacheError) {
        // A type condition the record cannot answer without its __typename: missing data.
        if shape.undecided {
            noteMissing(.absent, record: key, field: ObjectShape.typenameKey, then: .key("__typename"))
        }
        let frame = values.append(count: shape.fields.count, filling: UnsafeRawBufferPointer(start: nil, count: 0))
        _ = metadata.append(count: shape.fields.count, filling: UnsafeRawBufferPointer(start: nil, count: 0))
        defer {
            values.truncate(to: frame)
            metadata.truncate(to: frame)
        }
        if let record { try lookUp(shape, in: record, key: key, frame: frame) }
        if dependencies != nil { noteDependencies(key, present: record != nil, shape: shape, typename: readsTypename) }

        out.append(UInt8(ascii: "{"))
        var first = true
        for index in shape.outputFields {
            let field = shape.fields.baseAddress.assumedPresent + Int(index)
            let name = field.pointee.outputName
            out.append(first ? UnsafeRawBufferPointer(rebasing: name.dropFirst()) : name)
            first = false
            path.append(-1 - Int(field.pointee.responseKeyID))
            defer { path.removeLast() }
            let stored = values[frame + Int(index)]
            if field.pointee.isTypename {
                if let name = Self.string(stored) ?? shape.fallbackTypename {
                    out.appendQuoted(name)
                } else {
                    noteMissing(.absent, record: key, field: field.pointee.storageKey)
                    out.append("null")
                }
            } else if field.pointee.policy >= 0, let plan = field.pointee.plan {
                let fieldMaxAge = freshness.hasRules ? freshness.maxAge(field.pointee.maxAgeRule, parent: maxAge, isRootField: isRoot) : maxAge
                try resolved(shape.policyKeys[Int(field.pointee.policy)], plan: plan, field: field, maxAge: fieldMaxAge)
            } else if let first = stored.baseAddress {
                var fieldMaxAge = maxAge
                let fieldMetadata = metadata[frame + Int(index)]
                if freshness.needsJudging(fieldMetadata) {
                    if freshness.hasRules {
                        fieldMaxAge = freshness.maxAge(field.pointee.maxAgeRule, parent: maxAge, isRootField: isRoot)
                    }
                    guard try isUsable(fieldMetadata, maxAge: fieldMaxAge, record: key, field: field) else {
                        out.append("null")
                        continue
                    }
                }
                // A string or number of a leaf, straight; any other value in full.
                let tag = first.load(as: UInt8.self)
                if field.pointee.plan == nil, stored.count >= 2, stored.count - 2 == Int(first.load(fromByteOffset: 1, as: UInt8.self)),
                   tag == FieldValue.Tag.string.rawValue || (tag == FieldValue.Tag.number.rawValue && stored.count > 2) {
                    let text = UnsafeRawBufferPointer(rebasing: stored[2...])
                    if tag == FieldValue.Tag.string.rawValue { out.appendQuoted(text) } else { out.append(text) }
                } else {
                    var reader = ByteReader(stored)
                    try value(&reader, field: field, level: 0, recordKey: key, maxAge: fieldMaxAge)
                }
            } else {
                noteMissing(.absent, record: key, field: field.pointee.storageKey)
                out.append("null")
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Finds the stored values of the shape's looked-up fields in the record: first at
    /// the place the field had in the last record of the shape (records of one type
    /// mostly have the same fields), else by binary search.
    @inline(__always)
    private mutating func lookUp(_ shape: ObjectShape, in record: RecordView, key: UnsafeRawBufferPointer,
                                 frame: Int) throws(NormCacheError) {
        for slot in 0..<shape.lookupOrder.count {
            let index = Int(shape.lookupOrder[slot])
            let wanted = shape.fields[index].storageKey
            let guess = Int(shape.lastPositions[slot])
            if guess < record.count {
                guard let entry = record.entry(at: guess) else { throw txn.damaged(key) }
                if KeyBytes.equal(entry.key, wanted) {
                    values[frame + index] = entry.value
                    metadata[frame + index] = entry.metadata
                    continue
                }
            }
            guard let found = record.index(of: wanted) else { throw txn.damaged(key) }
            guard let position = found, let entry = record.entry(at: position) else { continue }
            shape.lastPositions[slot] = Int32(truncatingIfNeeded: position)
            values[frame + index] = entry.value
            metadata[frame + index] = entry.metadata
        }
    }

    /// Notes what the object of record `key` read through `shape` used: the record, the
    /// fields looked up, its typename when read.
    private mutating func noteDependencies(_ key: UnsafeRawBufferPointer, present: Bool, shape: ObjectShape, typename: Bool) {
        dependencies?.noteRecord(key, present: present)
        guard present else { return }
        for slot in 0..<shape.lookupOrder.count {
            dependencies?.noteField(record: key, field: shape.fields[Int(shape.lookupOrder[slot])].storageKey)
        }
        if typename { dependencies?.noteField(record: key, field: ObjectShape.typenameKey) }
    }

    /// Whether the stored field `field` (metadata bytes `metadata`, max age `maxAge`) can
    /// be returned: a plain written-at time that is fresh is settled by `freshTimes`, in a
    /// few instructions; anything else by `judge`.
    @inline(__always)
    private mutating func isUsable(_ metadata: UnsafeRawBufferPointer, maxAge: UInt32, record: UnsafeRawBufferPointer,
                                   field: UnsafeMutablePointer<ObjectShape.Field>) throws(NormCacheError) -> Bool {
        if freshTimes.isFresh(metadata, maxAge: maxAge) { return true }
        return try judge(metadata, maxAge: maxAge, record: record, field: field)
    }

    /// Judges the stored field `field` of the record `record`, of metadata bytes
    /// `metadata`, with max age `maxAge`: notes its times when the read reports them,
    /// notes it stale or missing when it is; returns false when it is a miss.
    private mutating func judge(_ metadata: UnsafeRawBufferPointer, maxAge: UInt32, record: UnsafeRawBufferPointer,
                                field: UnsafeMutablePointer<ObjectShape.Field>) throws(NormCacheError) -> Bool {
        guard let stored = FieldMetadata(metadata) else { throw txn.damaged(record) }
        let expiry = FreshnessCheck.expiry(of: stored, maxAge: maxAge)
        if freshness.reports {
            oldestWrittenAt = Swift.min(oldestWrittenAt, stored.writtenAt)
            earliestExpiry = Swift.min(earliestExpiry, expiry)
        }
        let verdict = freshness.verdict(expiry: expiry)
        if case .fresh = verdict { return true }
        let reason: MissReason = stored.isInvalidated ? .invalidated : .stale
        let at = context.shapes.responsePath(path.elements(0..<path.count)).segments
        let recordKey = String(decoding: record, as: UTF8.self)
        let fieldKey = String(decoding: field.pointee.storageKey, as: UTF8.self)
        guard case .staleReturned = verdict else {
            missing.append(FieldReport(path: at, reason: reason, record: recordKey, field: fieldKey,
                                        writtenAt: stored.writtenAt, expiredAt: expiry))
            return false
        }
        stale.append(FieldReport(path: at, reason: reason, record: recordKey, field: fieldKey, writtenAt: stored.writtenAt, expiredAt: expiry))
        return true
    }

    /// Appends one stored value: leaves as stored, references followed through the
    /// field's plan (whose max age, `maxAge`, the objects' fields inherit); `level`
    /// counts the lists entered within the field's type; `found`, what a `ListLookahead`
    /// found for the value, a list's element.
    private mutating func value(_ reader: inout ByteReader, field: UnsafeMutablePointer<ObjectShape.Field>, level: Int,
                                recordKey: UnsafeRawBufferPointer, maxAge: UInt32,
                                found: ListLookahead.Found = .notLookedUp) throws(NormCacheError) {
        let start = reader.offset
        guard let tagByte = reader.readByte(), let tag = FieldValue.Tag(rawValue: tagByte) else { throw txn.damaged(recordKey) }
        let plan = field.pointee.plan
        switch tag {
        case .null:
            if field.pointee.type.isNonNull(at: level) {
                throw NormCacheError(.data, "the cache holds null at \(currentPath()), a non-null position")
            }
            out.append("null")
        case .string where plan == nil:
            guard let length = reader.readLength(), let text = reader.readBytes(length) else { throw txn.damaged(recordKey) }
            out.appendQuoted(text)
        case .number where plan == nil:
            guard let length = reader.readLength(), let text = reader.readBytes(length), !text.isEmpty else {
                throw txn.damaged(recordKey)
            }
            out.append(text)
        case .reference where plan != nil:
            // An empty key is never written (a reference names a record): the record is damaged.
            guard let plan, let length = reader.readLength(), let key = reader.readBytes(length), !key.isEmpty else {
                throw txn.damaged(recordKey)
            }
            try object(key, plan: plan, declaredType: field.pointee.namedType, via: field, remember: true, maxAge: maxAge, found: found)
        case .list where plan != nil:
            try enter()
            defer { depth -= 1 }
            guard let storedCount = reader.readVarint(), let bodyLength = reader.readUInt32(),
                  let body = reader.readBytes(Int(bodyLength)) else { throw txn.damaged(recordKey) }
            let count = Int(clamping: storedCount)
            var elements = ByteReader(body)
            // A long list has its records looked up first, in key order.
            var lookahead = ListLookahead()
            var readahead = ReferenceReadahead()
            if count >= ListLookahead.minimumCount {
                try lookahead.start(elements, count: count, lookup: &lookup, interrupt: &interruptCheck)
            }
            out.append(UInt8(ascii: "["))
            for position in 0..<count {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                path.append(position)
                defer { path.removeLast() }
                let found = lookahead.isActive ? lookahead.found(at: position) : .notLookedUp
                if lookahead.isActive, records.isLarge, let shape = field.pointee.lastChild {
                    readahead.readAhead(at: position, of: lookahead, shape: shape, cache: records)
                }
                try value(&elements, field: field, level: level + 1, recordKey: recordKey, maxAge: maxAge, found: found)
            }
            out.append(UInt8(ascii: "]"))
        default:
            reader.offset = start
            let mark = out.count
            // A reference where the operation selects a leaf, or a scalar where it
            // selects an object: not data it can use.
            if plan == nil, case .written = FieldValue.appendJSON(from: &reader, to: &out, refusingReferences: true) { return }
            out.truncate(to: mark)
            reader.offset = start
            guard FieldValue.skip(&reader) else { throw txn.damaged(recordKey) }
            noteMissing(.absent, record: recordKey, field: field.pointee.storageKey)
            out.append("null")
        }
    }

    /// Reads the records a field policy names: one, or a list for a list argument.
    private mutating func resolved(_ keys: PolicyKeys, plan: Unmanaged<SelectionPlan>,
                                   field: UnsafeMutablePointer<ObjectShape.Field>, maxAge: UInt32) throws(NormCacheError) {
        switch keys {
        case .single(let key):
            try object(key, plan: plan, field: field, maxAge: maxAge)
        case .list(let keys):
            out.append(UInt8(ascii: "["))
            for (position, key) in keys.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                path.append(position)
                defer { path.removeLast() }
                try object(key, plan: plan, field: field, maxAge: maxAge)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    /// `object` for a record key a field policy gives (not remembered: the key's bytes
    /// live only for the call).
    private mutating func object(_ key: String, plan: Unmanaged<SelectionPlan>, field: UnsafeMutablePointer<ObjectShape.Field>,
                                 maxAge: UInt32) throws(NormCacheError) {
        var bytes = ByteBuffer()
        bytes.append(contentsOf: key.utf8)
        try object(bytes.bytes, plan: plan, declaredType: field.pointee.namedType, via: field, remember: false, maxAge: maxAge)
    }

    /// The stored bytes of the record `key`: from the records this read met before, else
    /// from the store — and remembered there when the field that refers to it (`via`)
    /// finds its records there (`ObjectShape.Field.usesRecordCache`).
    @inline(__always)
    private mutating func find(_ key: UnsafeRawBufferPointer,
                               via field: UnsafeMutablePointer<ObjectShape.Field>?) throws(NormCacheError) -> UnsafeRawBufferPointer? {
        guard let field, field.pointee.usesRecordCache else { return try stored(key) }
        field.pointee.cacheLookups &+= 1
        let hash = records.hash(key)
        if let known = records.record(key, hash: hash) {
            field.pointee.cacheHits &+= 1
            return known
        }
        guard let stored = try stored(key) else { return nil }
        records.insert(key, stored, hash: hash)
        return stored
    }

    /// The stored bytes of the record `key`.
    @inline(__always)
    private mutating func stored(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UnsafeRawBufferPointer? {
        try lookup.record(key)
    }

    /// One level deeper into the data; the data read is bounded in depth (stored
    /// references may form cycles) and in size, and stops when its handle is
    /// interrupted.
    @inline(__always)
    private mutating func enter() throws(NormCacheError) {
        try interruptCheck.pass()
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw NormCacheError(.data, "the data read at \(currentPath()) nests deeper than \(Self.maximumDepth) levels")
        }
        guard out.count <= Self.maximumOutput else {
            throw NormCacheError(.data, "the data read is larger than \(Self.maximumOutput >> 20) MiB (at \(currentPath()))")
        }
    }

    /// Notes the current path (and `extra` after it) as missing for `reason`: the field
    /// `field` of the record `record`, or the record itself when `field` is nil.
    /// A root field of a mutation whose root is not stored is named without its
    /// arguments, which may be secrets (`login` for `login(email:a@b,password:hunter2)`).
    private mutating func noteMissing(_ reason: MissReason, record: UnsafeRawBufferPointer, field: UnsafeRawBufferPointer?,
                                      then extra: ResponsePathSegment? = nil) {
        let recordKey = String(decoding: record, as: UTF8.self)
        var fieldKey = field.map { String(decoding: $0, as: UTF8.self) }
        if recordKey == "MUTATION_ROOT", !context.keyRules.storesMutationRoot, let key = fieldKey {
            fieldKey = String(key.prefix { $0 != "(" })
        }
        missing.append(FieldReport(path: context.shapes.responsePath(path.elements(0..<path.count), then: extra).segments, reason: reason,
                                   record: recordKey, field: fieldKey))
    }

    private func currentPath() -> ResponsePath {
        context.shapes.responsePath(path.elements(0..<path.count))
    }

    /// The bytes of the `__typename` a record stores, if it stores a string there.
    private func storedTypename(_ record: RecordView, _ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UnsafeRawBufferPointer? {
        guard let found = record.index(of: ObjectShape.typenameKey) else { throw txn.damaged(key) }
        return found.flatMap { record.entry(at: $0) }.flatMap { Self.string($0.value) }
    }

    /// The text of an encoded string value; nil for any other value.
    private static func string(_ value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard value.baseAddress != nil else { return nil }
        var reader = ByteReader(value)
        guard reader.readByte() == FieldValue.Tag.string.rawValue, let length = reader.readLength() else { return nil }
        return reader.readBytes(length)
    }
}
