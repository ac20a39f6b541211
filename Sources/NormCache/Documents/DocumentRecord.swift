/// How a plain JSON document (a REST response, `GET /articles?page=1`) is stored: a
/// record under the document's key whose field `$document` holds the document and whose
/// metadata carries its written-at time and expiry, so that freshness, invalidation,
/// listing and removal by prefix treat it as any record.
///
/// A document in which the document rules found no entity is kept as written: `$document`
/// is a string value of its JSON text (numbers keep their digits, members their order,
/// spaces their place). A document with entities (`DocumentNormalizer`) is kept as its
/// skeleton: `$document` is the document as a `FieldValue`, its entities references to
/// their records, and a second field, `$shape`, holds the members each entity had
/// (`DocumentShape`).
enum DocumentRecord {
    /// The field holding the document (no GraphQL field name starts with `$`).
    static var field: UnsafeRawBufferPointer { bytes("$document") }
    /// The field holding the shape of a document stored with entities.
    static var shapeField: UnsafeRawBufferPointer { bytes("$shape") }

    private static func bytes(_ name: StaticString) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
    }

    /// A stored document.
    enum Stored {
        /// The JSON text, as written.
        case text(UnsafeRawBufferPointer)
        /// The skeleton (an encoded value) and the shape (an encoded object).
        case skeleton(UnsafeRawBufferPointer, shape: UnsafeRawBufferPointer)
    }

    /// The record bytes of the document `json` kept as written under `key`, stamped with `metadata`.
    static func encode(_ json: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                       metadata: FieldMetadata) throws(NormCacheError) -> ByteBuffer {
        var value = ByteBuffer()
        value.appendTagged(FieldValue.Tag.string.rawValue, json)
        try value.check(while: "storing the document '\(KeyBytes.preview(key))'")
        var record = ByteBuffer()
        try RecordEncoder.record(fields: [(field, value.bytes)], metadata: metadata, into: &record, recordKey: key)
        return record
    }

    /// The record bytes of a document kept as its `skeleton` and `shape` under `key`,
    /// stamped with `metadata`.
    static func encode(skeleton: UnsafeRawBufferPointer, shape: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                       metadata: FieldMetadata) throws(NormCacheError) -> ByteBuffer {
        var record = ByteBuffer()
        try RecordEncoder.record(fields: [(field, skeleton), (shapeField, shape)], metadata: metadata, into: &record, recordKey: key)
        return record
    }

    /// The document and its metadata bytes in the stored record `stored` of `key`;
    /// `.invalidArgument` for a record that is not a document, `.notACache` for a damaged one.
    static func decode(_ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                       in txn: StoreTransaction) throws(NormCacheError) -> (document: Stored, metadata: UnsafeRawBufferPointer) {
        guard let view = RecordView(stored), let found = view.index(of: field) else { throw txn.damaged(key) }
        guard let index = found, view.count <= 2 else { throw notADocument(key) }
        guard let entry = view.entry(at: index) else { throw txn.damaged(key) }
        guard view.count == 2 else {
            var reader = ByteReader(entry.value)
            guard reader.readByte() == FieldValue.Tag.string.rawValue, let length = reader.readLength(),
                  let json = reader.readBytes(length), reader.isAtEnd else { throw txn.damaged(key) }
            return (.text(json), entry.metadata)
        }
        guard let shape = view.entry(at: 1 - index) else { throw txn.damaged(key) }
        guard KeyBytes.equal(shape.key, shapeField) else { throw notADocument(key) }
        return (.skeleton(entry.value, shape: shape.value), entry.metadata)
    }

    /// Whether the stored record `stored` is a document (it has the field `$document`).
    static func isDocument(_ stored: UnsafeRawBufferPointer) -> Bool {
        guard let view = RecordView(stored), case .some(.some) = view.index(of: field) else { return false }
        return true
    }

    private static func notADocument(_ key: UnsafeRawBufferPointer) -> NormCacheError {
        NormCacheError(.invalidArgument, "'\(KeyBytes.preview(key))' is a record of fields, not a document")
    }
}
