/// Records to write, with values in their binary form, parsed from the JSON notation
/// `{"Key": {"field": value, "ref": {"$reference": "Other:1"}}}` or built by the
/// normalizer. A key given twice is merged in input order (later fields win), so each
/// record appears once, at the place of its first appearance; call `finish` after the
/// last `add`.
struct RecordBatch {
    /// One record of the batch.
    struct Entry {
        /// The record key's UTF-8 bytes.
        var key: [UInt8]
        /// Its fields, keys unique, in order of first appearance.
        var fields: [IncomingField]
    }

    /// The records in order of first appearance.
    private(set) var entries: [Entry] = []
    private var entryIndex: [RecordKeyBytes: Int] = [:]
    private var fieldCount = 0
    /// The bytes of the record keys, field keys and values added: what the write stores,
    /// about.
    private(set) var byteCount = 0

    /// An empty batch.
    init() {}

    /// Adds fields of the record `key` (values encoded as `FieldValue`); the record is
    /// in the batch even with no fields. A field key the record has already takes the new
    /// value at its first place; records of many fields leave that to `finish`.
    mutating func add(recordKey key: [UInt8], fields: [(key: [UInt8], value: [UInt8])]) {
        let index = entry(for: key)
        entries[index].fields.reserveCapacity(entries[index].fields.count + fields.count)
        for field in fields {
            byteCount += field.key.count + field.value.count
            if entries[index].fields.count <= Self.inPlaceLimit,
               let existing = entries[index].fields.firstIndex(where: { $0.key.elementsEqual(field.key) }) {
                entries[index].fields[existing].replaceValue(with: field.value)
            } else {
                entries[index].fields.append(IncomingField(key: field.key, value: field.value, order: fieldCount))
            }
            fieldCount += 1
        }
    }

    /// The most fields of a record whose repeated keys `add` collapses as they come.
    private static let inPlaceLimit = 32

    private mutating func entry(for key: [UInt8]) -> Int {
        let index = entries.count
        let existing = entryIndex[RecordKeyBytes(key), default: index]
        guard existing == index else { return existing }
        entryIndex[RecordKeyBytes(key)] = index
        entries.append(Entry(key: key, fields: []))
        byteCount += key.count
        return index
    }

    /// The batch in the records JSON notation, fields in order of first appearance.
    func json() -> [UInt8] {
        var out = ByteBuffer()
        out.append(UInt8(ascii: "{"))
        for (index, entry) in entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.appendQuoted(entry.key)
            out.append(":{")
            for (fieldIndex, field) in entry.fields.enumerated() {
                if fieldIndex > 0 { out.append(UInt8(ascii: ",")) }
                out.appendQuoted(field.key)
                out.append(UInt8(ascii: ":"))
                Array(field.value).withUnsafeBytes { bytes in
                    var reader = ByteReader(bytes)
                    _ = FieldValue.appendJSON(from: &reader, to: &out)
                }
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        return out.array
    }

    /// Parses and validates records JSON; throws `.json` or `.invalidArgument` errors
    /// naming the byte offset and the record.
    init(json bytes: UnsafeRawBufferPointer) throws(NormCacheError) {
        let document = try JSONDocument(scanning: bytes)
        guard document.tokens[document.root].kind == .object else {
            throw NormCacheError(.json, "JSON error at byte \(document.tokens[document.root].offset): records must be a JSON object of record keys, not \(document.tokens[document.root].kind)")
        }
        for record in document.members(ofObject: document.root) {
            let key = document.stringBytes(record.key)
            let keyText = String(decoding: key, as: UTF8.self)
            guard !key.isEmpty else {
                throw NormCacheError(.invalidArgument, "empty record key at byte \(document.tokens[record.key].offset - 1)")
            }
            let fieldsToken = document.tokens[record.value]
            guard fieldsToken.kind == .object else {
                throw NormCacheError(.json, "JSON error at byte \(fieldsToken.offset): record '\(keyText)' must be a JSON object of fields, not \(fieldsToken.kind)")
            }
            try addFields(of: record.value, in: document, recordKey: key, keyText: keyText)
        }
        finish()
    }

    private mutating func addFields(of object: Int, in document: JSONDocument, recordKey: [UInt8],
                                    keyText recordKeyText: String) throws(NormCacheError) {
        var fields: [(key: [UInt8], value: [UInt8])] = []
        for field in document.members(ofObject: object) {
            let name = document.stringBytes(field.key)
            guard !name.isEmpty else {
                throw NormCacheError(.invalidArgument, "empty field name at byte \(document.tokens[field.key].offset - 1) in record '\(recordKeyText)'")
            }
            var value: [UInt8] = []
            try FieldValue.encode(document, field.value, into: &value,
                                  context: "field '\(String(decoding: name, as: UTF8.self))' of record '\(recordKeyText)'")
            fields.append((name, value))
        }
        add(recordKey: recordKey, fields: fields)
    }

    /// Collapses the repeated field keys that `add` left (in records of more than
    /// `inPlaceLimit` fields): the last value wins, at the place of the first appearance.
    mutating func finish() {
        for index in entries.indices where entries[index].fields.count > Self.inPlaceLimit {
            let fields = entries[index].fields
            let order = fields.indices.sorted {
                fields[$0].key == fields[$1].key ? $0 < $1 : fields[$0].key.lexicographicallyPrecedes(fields[$1].key)
            }
            var kept = fields
            var dropped = Array(repeating: false, count: fields.count)
            var runStart = 0
            for position in 1...order.count {
                if position < order.count, fields[order[position]].key == fields[order[runStart]].key { continue }
                let first = order[runStart], last = order[position - 1]
                if first != last {
                    kept[first].replaceValue(with: fields[last].value)
                    for repeated in order[(runStart + 1)..<position] { dropped[repeated] = true }
                }
                runStart = position
            }
            if dropped.contains(true) {
                entries[index].fields = kept.indices.filter { !dropped[$0] }.map { kept[$0] }
            }
        }
    }
}

/// A record key as a dictionary key: hashed as one run of bytes (an array of bytes
/// hashes byte by byte).
private struct RecordKeyBytes: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
