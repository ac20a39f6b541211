/// Records to write, parsed from the JSON notation
/// `{"Key": {"field": value, "ref": {"$reference": "Other:1"}}}`, with values already
/// in their binary form. A key given twice is merged in input order (later fields
/// win), so each record appears once, at the place of its first appearance.
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

    /// Parses and validates records JSON; throws `.json` or `.invalidArgument` errors
    /// naming the byte offset and the record.
    init(json bytes: UnsafeRawBufferPointer) throws(NormCacheError) {
        let document = try JSONDocument(scanning: bytes)
        guard document.tokens[document.root].kind == .object else {
            throw NormCacheError(.json, "JSON error at byte \(document.tokens[document.root].offset): records must be a JSON object of record keys, not \(document.tokens[document.root].kind)")
        }
        var entryIndex: [[UInt8]: Int] = [:]
        var fieldCount = 0
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
            let index: Int
            if let existing = entryIndex[key] {
                index = existing
            } else {
                index = entries.count
                entryIndex[key] = index
                entries.append(Entry(key: key, fields: []))
            }
            try Self.merge(fieldsOf: record.value, in: document, into: &entries[index], recordKey: keyText,
                           order: &fieldCount)
        }
        collapseRepeatedFields()
    }

    private static func merge(fieldsOf object: Int, in document: JSONDocument, into entry: inout Entry,
                              recordKey: String, order: inout Int) throws(NormCacheError) {
        for field in document.members(ofObject: object) {
            let name = document.stringBytes(field.key)
            guard !name.isEmpty else {
                throw NormCacheError(.invalidArgument, "empty field name at byte \(document.tokens[field.key].offset - 1) in record '\(recordKey)'")
            }
            var value: [UInt8] = []
            try FieldValue.encode(document, field.value, into: &value,
                                  context: "field '\(String(decoding: name, as: UTF8.self))' of record '\(recordKey)'")
            entry.fields.append(IncomingField(key: name, value: value, order: order))
            order += 1
        }
    }

    /// Collapses repeated field keys of each record: the last value wins, at the place
    /// of the first appearance.
    private mutating func collapseRepeatedFields() {
        for index in entries.indices where entries[index].fields.count > 1 {
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
                    kept[first].value = fields[last].value
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
