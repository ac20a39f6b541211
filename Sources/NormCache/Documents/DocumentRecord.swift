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
/// (`DocumentShape`). A document written with an `ETag` keeps it as a string in a field
/// `$etag` (`EntityTag`). Every field of the record has the document's metadata.
enum DocumentRecord {
    /// The field holding the document (no GraphQL field name starts with `$`).
    static var field: UnsafeRawBufferPointer { bytes("$document") }
    /// The field holding the shape of a document stored with entities.
    static var shapeField: UnsafeRawBufferPointer { bytes("$shape") }
    /// The field holding the document's entity-tag, when its write gave one.
    static var etagField: UnsafeRawBufferPointer { bytes("$etag") }

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

    /// A stored document record, read in place.
    struct Decoded {
        /// The document.
        var document: Stored
        /// The metadata bytes of the document.
        var metadata: UnsafeRawBufferPointer
        /// The encoded value of `$document`.
        var value: UnsafeRawBufferPointer
        /// The entity-tag's text, if the document has one.
        var etag: UnsafeRawBufferPointer?
    }

    /// The record bytes of the document `json` kept as written under `key`, with the
    /// entity-tag `etag` if any, stamped with `metadata`.
    static func encode(_ json: UnsafeRawBufferPointer, etag: UnsafeRawBufferPointer?, key: UnsafeRawBufferPointer,
                       metadata: FieldMetadata) throws(NormCacheError) -> ByteBuffer {
        var value = ByteBuffer()
        value.appendTagged(FieldValue.Tag.string.rawValue, json)
        try value.check(while: "storing the document '\(KeyBytes.preview(key))'")
        return try encode(value: value.bytes, shape: nil, etag: etag, key: key, metadata: metadata)
    }

    /// The record bytes of a document whose `$document` is the encoded `value`, with its
    /// `shape` (a document stored with entities) and entity-tag `etag`, if any, under
    /// `key`, every field stamped with `metadata`.
    static func encode(value: UnsafeRawBufferPointer, shape: UnsafeRawBufferPointer?, etag: UnsafeRawBufferPointer?,
                       key: UnsafeRawBufferPointer, metadata: FieldMetadata) throws(NormCacheError) -> ByteBuffer {
        var tag = ByteBuffer()
        if let etag { tag.appendTagged(FieldValue.Tag.string.rawValue, etag) }
        try tag.check(while: "storing the document '\(KeyBytes.preview(key))'")
        // In ascending byte order: $document, $etag, $shape.
        var fields = [(key: field, value: value)]
        if etag != nil { fields.append((etagField, tag.bytes)) }
        if let shape { fields.append((shapeField, shape)) }
        var record = ByteBuffer()
        try RecordEncoder.record(fields: fields, metadata: metadata, into: &record, recordKey: key)
        return record
    }

    /// The document in the stored record `stored` of `key`; `.invalidArgument` for a
    /// record that is not a document, `.notACache` for a damaged one.
    static func decode(_ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                       in txn: StoreTransaction) throws(NormCacheError) -> Decoded {
        guard let view = RecordView(stored), let found = view.index(of: field) else { throw txn.damaged(key) }
        guard let index = found, view.count <= 3 else { throw notADocument(key) }
        guard let entry = view.entry(at: index) else { throw txn.damaged(key) }
        var shape: UnsafeRawBufferPointer?
        var etag: UnsafeRawBufferPointer?
        for position in 0..<view.count where position != index {
            guard let other = view.entry(at: position) else { throw txn.damaged(key) }
            if KeyBytes.equal(other.key, shapeField) {
                shape = other.value
            } else if KeyBytes.equal(other.key, etagField) {
                etag = try string(other.value, key: key, in: txn)
            } else {
                throw notADocument(key)
            }
        }
        guard let shape else {
            return Decoded(document: .text(try string(entry.value, key: key, in: txn)), metadata: entry.metadata, value: entry.value, etag: etag)
        }
        return Decoded(document: .skeleton(entry.value, shape: shape), metadata: entry.metadata, value: entry.value, etag: etag)
    }

    /// The text of the encoded string value `value` of the record `key`; `.notACache` for another value.
    private static func string(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                               in txn: StoreTransaction) throws(NormCacheError) -> UnsafeRawBufferPointer {
        var reader = ByteReader(value)
        guard reader.readByte() == FieldValue.Tag.string.rawValue, let length = reader.readLength(),
              let text = reader.readBytes(length), reader.isAtEnd else { throw txn.damaged(key) }
        return text
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
