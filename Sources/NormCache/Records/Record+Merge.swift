/// One field of a write: its key and its encoded value (see `FieldValue`), held in one
/// allocation (a large write holds millions of them until it commits).
struct IncomingField {
    /// The key's UTF-8 bytes, then the encoded value.
    private var storage: [UInt8]
    private let keyLength: Int
    /// The place of the field's first appearance in its input, counted across all
    /// records, so changed fields can be reported in input order.
    let order: Int

    /// The field `key` with `value`, first seen at `order`.
    init(key: [UInt8], value: [UInt8], order: Int) {
        storage = key
        storage.append(contentsOf: value)
        keyLength = key.count
        self.order = order
    }

    /// The field key's UTF-8 bytes.
    var key: ArraySlice<UInt8> { storage[..<keyLength] }

    /// The encoded value.
    var value: ArraySlice<UInt8> { storage[keyLength...] }

    /// Gives the field `value` in place of its own.
    mutating func replaceValue<Value: Collection>(with value: Value) where Value.Element == UInt8 {
        storage.replaceSubrange(keyLength..., with: value)
    }
}

/// The result of merging incoming fields into a record.
struct MergedRecord {
    /// Whether the record was encoded anew (into the caller's buffer); false when the
    /// stored bytes can stay as they are.
    var rewritten: Bool
    /// Indices into the incoming fields whose stored value changed, ascending.
    var changed: [Int]
}

extension RecordView {
    /// Merges `incoming` (field keys unique) into `existing` (nil for a new record),
    /// field by field: an incoming field replaces the stored one, stored fields not
    /// incoming stay. Incoming fields are stamped `writtenAt`; a field whose value is
    /// unchanged is not reported, and when nothing changed and every timestamp is
    /// current the record needs no rewrite.
    /// `writer` and `out` are scratch buffers reused from record to record; `out` holds the
    /// new record when it is rewritten.
    static func merge(_ existing: RecordView?, _ incoming: [IncomingField], writtenAt: UInt64,
                      recordKey: @autoclosure () -> String, writer: inout RecordWriter,
                      into out: inout [UInt8]) throws(NormCacheError) -> MergedRecord {
        let order = incoming.indices.sorted { incoming[$0].key.lexicographicallyPrecedes(incoming[$1].key) }
        let storedCount = existing?.count ?? 0
        writer.reset()
        var changed: [Int] = []
        var needsRewrite = existing == nil
        var stored = 0, next = 0
        while stored < storedCount || next < order.count {
            var storedField: Field?
            if stored < storedCount, let view = existing {
                guard let field = view.field(at: stored) else {
                    throw NormCacheError(.notACache, "record '\(recordKey())' is damaged (field \(stored) of \(storedCount))")
                }
                storedField = field
            }
            let candidate = next < order.count ? incoming[order[next]] : nil
            if let field = storedField, candidate.map({ field.key.lexicographicallyPrecedes($0.key) }) ?? true {
                writer.append(key: field.key, writtenAt: field.writtenAt, value: field.value)
                stored += 1
                continue
            }
            guard let new = candidate else { break }
            if let field = storedField, field.key.elementsEqual(new.key) {
                stored += 1
                let same = new.value.withUnsafeBytes { field.value.hasSameBytes(as: $0) }
                if !same { changed.append(order[next]) }
                if field.writtenAt != writtenAt || !same { needsRewrite = true }
            } else {
                changed.append(order[next])
                needsRewrite = true
            }
            writer.append(key: new.key, writtenAt: writtenAt, value: new.value)
            next += 1
        }
        changed.sort()
        if needsRewrite { try writer.finish(into: &out) }
        return MergedRecord(rewritten: needsRewrite, changed: changed)
    }
}

/// The buffers a write reuses from record to record while it merges.
final class MergeScratch {
    /// Builds each merged record.
    var writer = RecordWriter(fieldCapacity: 16)
    /// Holds each merged record's encoded bytes.
    var record: [UInt8] = []
}
