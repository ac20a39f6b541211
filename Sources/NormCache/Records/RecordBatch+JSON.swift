extension RecordBatch {
    /// Parses and validates records JSON
    /// (`{"Key": {"field": value, "ref": {"$reference": "Other:1"}}}`); throws `.json`
    /// or `.invalidArgument` errors naming the byte offset and the record, and
    /// `.interrupted` when its handle is interrupted (`InterruptCheck`). Keys and
    /// names point into `bytes`, which must outlive the batch's use.
    init(json bytes: UnsafeRawBufferPointer) throws(NormCacheError) {
        self.init()
        let document = try JSONDocument(scanning: bytes)
        guard document.tokens[document.root].kind == .object else {
            throw NormCacheError(.json, "JSON error at byte \(document.tokens[document.root].offset): records must be a JSON object of record keys, not \(document.tokens[document.root].kind)")
        }
        // As many records as the object has members, at most (a key given twice is one).
        let members = Int(document.tokens[document.root].length)
        try reserve(records: members, fields: (Int(document.tokens[document.root].end) - document.root - 1 - 2 * members) / 2)
        var interruptCheck = InterruptCheck()
        for record in document.members(ofObject: document.root) {
            try interruptCheck.pass()
            try document.withStringBytes(record.key) { (key) throws(NormCacheError) in try addRecord(record, of: document, key: key) }
        }
        try finish()
    }

    /// Adds one member of the records object: the record `key` and its fields.
    private mutating func addRecord(_ record: (key: Int, value: Int), of document: JSONDocument,
                                    key: UnsafeRawBufferPointer) throws(NormCacheError) {
        guard !key.isEmpty else {
            throw NormCacheError(.invalidArgument, "empty record key at byte \(document.tokens[record.key].offset - 1)")
        }
        let fieldsToken = document.tokens[record.value]
        guard fieldsToken.kind == .object else {
            throw NormCacheError(.json, "JSON error at byte \(fieldsToken.offset): record '\(String(decoding: key, as: UTF8.self))' must be a JSON object of fields, not \(fieldsToken.kind)")
        }
        let start = runStart
        let hash = hashAskingForSlot(key)
        var order = takeOrders(Int(fieldsToken.length))
        for field in document.members(ofObject: record.value) {
            try addField(field, of: document, recordKey: key, order: order)
            order += 1
        }
        try addRecord(key: key, hash: hash, runFrom: start, sorted: false)
    }

    /// Adds one member of a record's JSON object as a field of the run being built.
    private mutating func addField(_ field: (key: Int, value: Int), of document: JSONDocument, recordKey: UnsafeRawBufferPointer,
                                   order: UInt32) throws(NormCacheError) {
        guard document.tokens[field.key].length > 0 else {
            throw NormCacheError(.invalidArgument, "empty field name at byte \(document.tokens[field.key].offset - 1) in record '\(String(decoding: recordKey, as: UTF8.self))'")
        }
        guard document.tokens[field.key].hasEscapes else {
            // Scalars and lists of them, most fields, take the path without checks.
            let name = document.rawText(field.key)
            let start = values.count
            if !FieldValue.encodeSimple(document, field.value, maxListDepth: 1, into: &values)
                && !FieldValue.encodeLiteral(document.tokens[field.value], into: &values) {
                try FieldValue.encode(document, field.value, into: &values, context: Self.naming(field: name, of: recordKey))
            }
            return try appendField(key: name, values: start..<values.count, order: order)
        }
        let name = document.stringBytes(field.key)
        var value = ByteBuffer()
        try name.withBytes { (name) throws(NormCacheError) in
            try FieldValue.encode(document, field.value, into: &value, context: Self.naming(field: name, of: recordKey))
        }
        try value.check(while: "encoding a value of the records")
        try appendField(copyingKey: name, copying: value.bytes, order: order)
    }

    /// How errors name the field `field` of the record `record` (made only for an error;
    /// the bytes are borrowed, so that encoding a field counts no references).
    private static func naming(field: UnsafeRawBufferPointer, of record: UnsafeRawBufferPointer) -> String {
        "field '\(String(decoding: field, as: UTF8.self))' of record '\(String(decoding: record, as: UTF8.self))'"
    }
}
