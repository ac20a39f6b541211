/// The binary layout of a stored record, read in place (for example straight from
/// LMDB's memory map):
///
///     UInt8        format (1)
///     varint       field count
///     UInt32 × n   offset of each field entry from the record start, entries sorted
///                  by the bytes of their field keys
///     entries      varint key length, key, UInt8 metadata flags,
///                  [varint written-at, seconds since 1970, when flag 1 is set],
///                  varint value length, value (see `FieldValue`)
///
/// The offset table makes one field a binary search away without decoding the rest.
/// The flags leave room for more per-field metadata in later formats.
struct RecordView {
    /// The format byte this library writes and reads.
    static let format: UInt8 = 1
    /// Metadata flag: the entry carries its written-at time.
    static let hasWrittenAt: UInt8 = 1

    /// One field of a record, viewed in place.
    struct Field {
        /// The field key's UTF-8 bytes.
        var key: UnsafeRawBufferPointer
        /// When the field was last written, in seconds since 1970 (0 if unknown).
        var writtenAt: UInt64
        /// The encoded value.
        var value: UnsafeRawBufferPointer
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

    /// The field at `index` in key order, or nil when its entry is damaged.
    @inline(__always)
    func field(at index: Int) -> Field? {
        decode(at: index, readingTime: true).map { Field(key: $0.key, writtenAt: $0.writtenAt, value: $0.value) }
    }

    /// The key and value of the field at `index` in key order (its time skipped), or
    /// nil when its entry is damaged: what reads look fields up with.
    @inline(__always)
    func entry(at index: Int) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        decode(at: index, readingTime: false).map { ($0.key, $0.value) }
    }

    /// Decodes the entry at `index`, straight from the bytes: lengths of one byte (keys
    /// and values under 128 bytes) directly, longer ones through `ByteReader`; the time
    /// read, or skipped by finding its last byte in one word.
    @inline(__always)
    private func decode(at index: Int, readingTime: Bool)
        -> (key: UnsafeRawBufferPointer, writtenAt: UInt64, value: UnsafeRawBufferPointer)? {
        guard index >= 0, index < count, let base = bytes.baseAddress else { return nil }
        let end = bytes.count
        internalCheck(tableOffset &+ index &* 4 &+ 4 <= end, "record offset table entry \(index) past the record's \(end) bytes")
        var position = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: tableOffset &+ index &* 4, as: UInt32.self)))
        guard position < end, let keyLength = length(at: &position), keyLength < end &- position else { return nil }
        let key = UnsafeRawBufferPointer(start: base + position, count: keyLength)
        position &+= keyLength
        internalCheck(position < end, "record entry flags at \(position) past the record's \(end) bytes")
        let flags = base.load(fromByteOffset: position, as: UInt8.self)
        position &+= 1
        var writtenAt: UInt64 = 0
        if flags == RecordView.hasWrittenAt {
            if readingTime {
                var reader = ByteReader(bytes, at: position)
                guard let time = reader.readVarint() else { return nil }
                writtenAt = time
                position = reader.offset
            } else {
                // The time's varint ends at its first byte below 0x80: found in one word.
                let stops = position &+ 8 <= end ? ~base.loadUnaligned(fromByteOffset: position, as: UInt64.self) & 0x8080_8080_8080_8080 : 0
                if stops != 0 {
                    position &+= stops.trailingZeroBitCount &>> 3 &+ 1
                } else {
                    var reader = ByteReader(bytes, at: position)
                    guard reader.skipVarint() else { return nil }
                    position = reader.offset
                }
            }
        } else if flags != 0 {
            return nil
        }
        guard position < end, let valueLength = length(at: &position), valueLength <= end &- position else { return nil }
        return (key, writtenAt, UnsafeRawBufferPointer(start: base + position, count: valueLength))
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
