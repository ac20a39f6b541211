/// Reads a stored document back, judged as a read judges fields: the document's own
/// time, and, for a document stored with entities, every entity field it uses.
///
/// A document stored with entities is written out from its skeleton: each reference
/// becomes the object its record holds now, with the members its shape lists (in the
/// shape's order), entities below it the same way. A member the record lacks is left
/// out, and so is one whose value holds an entity where the document had none (the
/// shape lists no member there: a list's elements share one shape, the union of their
/// members, so an element may be shown a member it did not have, whose value came from
/// elsewhere). A record that is gone is a miss with reason `absent` at the reference's
/// path; a field stale beyond `maxStale` is a miss with its record and member name. The document's own staleness is reported at the empty path,
/// with the document key as its record and no field.
struct DocumentReader: ~Copyable {
    private let txn: StoreTransaction
    private let freshness: FreshnessCheck
    /// The key of the document read, named in errors.
    private let documentKey: String
    /// The JSON written so far.
    private var out = ByteBuffer()
    private var path: [ResponsePathSegment] = []
    private var missing: [FieldReport] = []
    private var stale: [FieldReport] = []
    private var oldestWrittenAt: UInt64?
    private var earliestExpiry: UInt64?

    /// A reader of the document `key` in `txn`, judging by `freshness`.
    init(_ txn: StoreTransaction, key: UnsafeRawBufferPointer, freshness: FreshnessCheck) {
        self.txn = txn
        self.freshness = freshness
        documentKey = String(decoding: key, as: UTF8.self)
    }

    /// The read of the document `stored` under `key`, whose own metadata bytes are `metadata`.
    consuming func read(_ stored: DocumentRecord.Stored, metadata: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                        options: ReadOptions) throws(NormCacheError) -> ReadResult {
        _ = try judge(metadata, record: key, field: nil)
        switch stored {
        case .text(let json):
            out.append(json)
        case .skeleton(let skeleton, let shape):
            var reader = ByteReader(skeleton)
            // The document's own entities have shapes: a refusal is a damaged record.
            guard try write(&reader, shape: shape, depth: 0), reader.isAtEnd else { throw txn.damaged(key) }
        }
        try out.check(while: "reading the document '\(KeyBytes.preview(key))'")
        var result = ReadResult(status: .complete, data: out.array, missing: missing, stale: stale)
        if freshness.reports {
            result.oldestWrittenAt = oldestWrittenAt
            result.earliestExpiry = earliestExpiry
        }
        if !missing.isEmpty {
            result.status = .miss
            result.stale = []
            if !options.partial { result.data = nil }
        } else if !stale.isEmpty {
            result.status = .stale
        }
        return result
    }

    /// Judges a field (or the document) of `metadata`: notes its times, reports it when
    /// stale; returns whether its value may be used.
    private mutating func judge(_ metadata: UnsafeRawBufferPointer, record: UnsafeRawBufferPointer,
                                field: UnsafeRawBufferPointer?) throws(NormCacheError) -> Bool {
        guard let decoded = FieldMetadata(metadata) else { throw txn.damaged(record) }
        let expiry = FreshnessCheck.expiry(of: decoded, maxAge: MaxAgeRules.forever)
        oldestWrittenAt = min(oldestWrittenAt ?? .max, decoded.writtenAt)
        if expiry != .max { earliestExpiry = min(earliestExpiry ?? .max, expiry) }
        let verdict = freshness.verdict(expiry: expiry)
        if case .fresh = verdict { return true }
        let report = FieldReport(path: path, reason: decoded.isInvalidated ? .invalidated : .stale,
                                 record: String(decoding: record, as: UTF8.self), field: field.map { String(decoding: $0, as: UTF8.self) },
                                 writtenAt: decoded.writtenAt, expiredAt: expiry)
        if case .staleReturned = verdict {
            stale.append(report)
            return true
        }
        missing.append(report)
        return false
    }

    /// Writes the skeleton value at `reader` as JSON, by the shape node `shape`; returns
    /// false, leaving `out` to be cut back by the caller, when the value holds an entity
    /// where the shape lists no member (the document had none there).
    private mutating func write(_ reader: inout ByteReader, shape: UnsafeRawBufferPointer, depth: Int) throws(NormCacheError) -> Bool {
        // The shape is no deeper than the document, and a stored value no deeper than the
        // JSON it came from: together, at most twice the deepest JSON.
        guard depth <= 2 * FieldValue.maxDepth else { throw damaged() }
        if DocumentShape.isEmpty(shape) {
            switch FieldValue.appendJSON(from: &reader, to: &out, refusingReferences: true) {
            case .written: return true
            case .reference: return false
            case .damaged: throw damaged()
            }
        }
        guard let tagByte = reader.readByte(), let tag = FieldValue.Tag(rawValue: tagByte) else { throw damaged() }
        switch tag {
        case .null, .false, .true, .number, .string:
            reader.offset -= 1
            guard case .written = FieldValue.appendJSON(from: &reader, to: &out, refusingReferences: true) else { throw damaged() }
        case .reference:
            guard let length = reader.readLength(), let key = reader.readBytes(length), !key.isEmpty else { throw damaged() }
            try writeEntity(key, shape: shape, depth: depth)
        case .list, .object:
            guard let count = reader.readVarint(), let bodyLength = reader.readUInt32(),
                  let body = reader.readBytes(Int(bodyLength)) else { throw damaged() }
            var inner = ByteReader(body)
            let children = tag == .object ? DocumentShape.members(of: shape) : nil
            out.append(UInt8(ascii: tag == .list ? "[" : "{"))
            for index in 0..<count {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                var child = shape
                if tag == .list {
                    path.append(.index(Int(index)))
                } else {
                    guard let nameLength = inner.readLength(), let name = inner.readBytes(nameLength) else { throw damaged() }
                    out.appendQuoted(name)
                    out.append(UInt8(ascii: ":"))
                    path.append(.key(String(decoding: name, as: UTF8.self)))
                    child = children?.first { KeyBytes.equal($0.name, name) }?.shape ?? DocumentShape.empty
                }
                defer { path.removeLast() }
                guard try write(&inner, shape: child, depth: depth + 1) else { return false }
            }
            guard inner.isAtEnd else { throw damaged() }
            out.append(UInt8(ascii: tag == .list ? "]" : "}"))
        }
        return true
    }

    /// Writes the entity `key` as the object of the members `shape` lists that its
    /// record holds now (a member whose value holds an entity where the document had
    /// none is left out, as a member the record lacks is); a miss (and `null`) when the
    /// record is gone.
    private mutating func writeEntity(_ key: UnsafeRawBufferPointer, shape: UnsafeRawBufferPointer, depth: Int) throws(NormCacheError) {
        guard let members = DocumentShape.members(of: shape) else { throw damaged() }
        guard let stored = try txn.record(key) else {
            missing.append(FieldReport(path: path, reason: .absent, record: String(decoding: key, as: UTF8.self), field: nil))
            out.append("null")
            return
        }
        guard let record = RecordView(stored) else { throw txn.damaged(key) }
        out.append(UInt8(ascii: "{"))
        var first = true
        for member in members {
            guard case .some(let found) = record.index(of: member.name) else { throw txn.damaged(key) }
            guard let index = found else { continue }
            guard let field = record.entry(at: index) else { throw txn.damaged(key) }
            let mark = out.count
            let reports = (missing.count, stale.count)
            if !first { out.append(UInt8(ascii: ",")) }
            out.appendQuoted(member.name)
            out.append(UInt8(ascii: ":"))
            path.append(.key(String(decoding: member.name, as: UTF8.self)))
            defer { path.removeLast() }
            guard try judge(field.metadata, record: key, field: member.name) else {
                out.append("null")
                first = false
                continue
            }
            var value = ByteReader(field.value)
            guard try write(&value, shape: member.shape, depth: depth + 1) else {
                out.truncate(to: mark)
                missing.removeSubrange(reports.0...)
                stale.removeSubrange(reports.1...)
                continue
            }
            guard value.isAtEnd else { throw txn.damaged(key) }
            first = false
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The error for a document record whose skeleton or shape is not well formed.
    private func damaged() -> NormCacheError {
        let place = path.isEmpty ? "its top level" : path.map(\.description).joined(separator: ".")
        return NormCacheError(.notACache, "the document '\(documentKey)' in '\(txn.path)' is damaged at \(place)")
    }
}
