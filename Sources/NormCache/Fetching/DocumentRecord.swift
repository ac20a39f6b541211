/// How a plain JSON document (a REST response, `GET /articles?page=1`) is stored: a
/// record under the document's key with one field, `$document`, whose value is the
/// document's JSON text as written (a string value: numbers keep their digits, members
/// their order) and whose metadata carries its written-at time and expiry, so that
/// freshness, invalidation, listing and removal by prefix treat it as any record.
enum DocumentRecord {
    /// The field holding the document (no GraphQL field name starts with `$`).
    static var field: UnsafeRawBufferPointer {
        let name: StaticString = "$document"
        return UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
    }

    /// The record bytes of the document `json` under `key`, stamped with `metadata`.
    static func encode(_ json: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                       metadata: FieldMetadata) throws(NormCacheError) -> ByteBuffer {
        var value = ByteBuffer()
        value.appendTagged(FieldValue.Tag.string.rawValue, json)
        try value.check(while: "storing the document '\(KeyBytes.preview(key))'")
        var record = ByteBuffer()
        try RecordEncoder.record(field: field, metadata: metadata, value: value.bytes, into: &record, recordKey: key)
        return record
    }

    /// The document's JSON text and metadata bytes in the stored record `stored` of
    /// `key`; `.invalidArgument` for a record that is not a document, `.notACache` for
    /// a damaged one.
    static func decode(_ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                       in txn: StoreTransaction) throws(NormCacheError) -> (json: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer) {
        guard let view = RecordView(stored), let found = view.index(of: field) else { throw txn.damaged(key) }
        guard view.count == 1, let index = found else {
            throw NormCacheError(.invalidArgument, "'\(KeyBytes.preview(key))' is a record of fields, not a document")
        }
        guard let entry = view.entry(at: index) else { throw txn.damaged(key) }
        var reader = ByteReader(entry.value)
        guard reader.readByte() == FieldValue.Tag.string.rawValue, let length = reader.readLength(),
              let json = reader.readBytes(length), reader.isAtEnd else { throw txn.damaged(key) }
        return (json, entry.metadata)
    }
}
