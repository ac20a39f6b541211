/// The binary layout of a stored record, read in place (for example straight from
/// LMDB's memory map):
///
///     UInt8        format (1)
///     varint       field count
///     UInt32 × n   offset of each field entry from the record start, entries sorted
///                  by the bytes of their field keys
///     entries      varint key length, key, metadata (`FieldMetadata`: flags, written-at,
///                  expiry), varint value length, value (see `FieldValue`)
///
/// The offset table makes one field a binary search away without decoding the rest.
struct RecordView {
    /// The format byte this library writes and reads.
    static let format: UInt8 = 1

    /// One field of a record, viewed in place.
    struct Field {
        /// The field key's UTF-8 bytes.
        var key: UnsafeRawBufferPointer
        /// The entry's metadata bytes (`FieldMetadata`), exactly.
        var metadata: UnsafeRawBufferPointer
        /// The encoded value.
        var value: UnsafeRawBufferPointer

        /// When the field was last written, in seconds since 1970 (0 if unknown).
        var writtenAt: UInt64 { FieldMetadata(metadata)?.writtenAt ?? 0 }
    }

    /// The whole encoded record.
    let bytes: UnsafeRawBufferPointer
    /// The number of fields.
    let count: Int
    private let tableOffset: Int

    /// Views `bytes` as a record, or returns nil when its header is damaged.
    init?(_ bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        guard reader.readByte() == RecordView.format, let count = reader.readVarint(),
              count <= UInt64(bytes.count - reader.offset) / 4 else { return nil }
        self.bytes = bytes
        self.count = Int(count)
        self.tableOffset = reader.offset
    }

    /// The field at `index` in key order, its metadata checked, or nil when its entry
    /// is damaged.
    @inline(__always)
    func field(at index: Int) -> Field? {
        guard let field = entry(at: index), FieldMetadata(field.metadata) != nil else { return nil }
        return field
    }

    /// The field at `index` in key order, or nil when its entry is damaged: what reads
    /// look fields up with. Its metadata bytes are delimited but not decoded: a read
    /// decodes them only when a time matters (`FieldMetadata`).
    ///
    /// Decoded straight from the bytes: lengths of one byte (keys and values under 128
    /// bytes) directly, longer ones through `ByteReader`; a lone written-at time skipped
    /// by finding its last byte in one word.
    @inline(__always)
    func entry(at index: Int) -> Field? {
        guard index >= 0, index < count, let base = bytes.baseAddress else { return nil }
        let end = bytes.count
        internalCheck(tableOffset &+ index &* 4 &+ 4 <= end, "record offset table entry \(index) past the record's \(end) bytes")
        var position = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: tableOffset &+ index &* 4, as: UInt32.self)))
        guard position < end, let keyLength = length(at: &position), keyLength < end &- position else { return nil }
        let key = UnsafeRawBufferPointer(start: base + position, count: keyLength)
        position &+= keyLength
        internalCheck(position < end, "record entry flags at \(position) past the record's \(end) bytes")
        let metadataStart = position
        let flags = base.load(fromByteOffset: position, as: UInt8.self)
        position &+= 1
        if flags == FieldMetadata.hasWrittenAt {
            // The time's varint ends at its first byte below 0x80: found in one word.
            let stops = position &+ 8 <= end ? ~base.loadUnaligned(fromByteOffset: position, as: UInt64.self) & 0x8080_8080_8080_8080 : 0
            if stops != 0 {
                position &+= stops.trailingZeroBitCount &>> 3 &+ 1
            } else {
                var reader = ByteReader(bytes, at: position)
                guard reader.skipVarint() else { return nil }
                position = reader.offset
            }
        } else if flags != 0 {
            guard FieldMetadata.isValid(flags) else { return nil }
            var reader = ByteReader(bytes, at: position)
            if flags & FieldMetadata.hasWrittenAt != 0 { guard reader.skipVarint() else { return nil } }
            if flags & FieldMetadata.hasExpiry != 0 { guard reader.skipVarint() else { return nil } }
            position = reader.offset
        }
        let metadata = UnsafeRawBufferPointer(start: base + metadataStart, count: position &- metadataStart)
        guard position < end, let valueLength = length(at: &position), valueLength <= end &- position else { return nil }
        return Field(key: key, metadata: metadata, value: UnsafeRawBufferPointer(start: base + position, count: valueLength))
    }

    /// Reads the varint length at `position` (which is inside the bytes).
    @inline(__always)
    private func length(at position: inout Int) -> Int? {
        internalCheck(position >= 0 && position < bytes.count, "record length at \(position) outside the record's \(bytes.count) bytes")
        let first = bytes.load(fromByteOffset: position, as: UInt8.self)
        if first < 0x80 {
            position &+= 1
            return Int(first)
        }
        var reader = ByteReader(bytes, at: position)
        guard let length = reader.readLength() else { return nil }
        position = reader.offset
        return length
    }

    /// The index of the field with this key, found by binary search: `.some(nil)` when
    /// the record has no such field, nil when the record is damaged.
    func index(of key: UnsafeRawBufferPointer) -> Int?? {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            guard let candidate = entry(at: middle) else { return nil }
            let order = KeyBytes.compare(candidate.key, key)
            if order == 0 { return .some(middle) }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return .some(nil)
    }
}
