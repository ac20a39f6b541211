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
    func field(at index: Int) -> Field? {
        guard index >= 0, index < count else { return nil }
        let entryOffset = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: tableOffset + index * 4, as: UInt32.self)))
        var reader = ByteReader(bytes, at: min(entryOffset, bytes.count))
        guard let keyLength = reader.readLength(), let key = reader.readBytes(keyLength),
              let flags = reader.readByte(), flags & ~RecordView.hasWrittenAt == 0 else { return nil }
        var writtenAt: UInt64 = 0
        if flags & RecordView.hasWrittenAt != 0 {
            guard let time = reader.readVarint() else { return nil }
            writtenAt = time
        }
        guard let valueLength = reader.readLength(), let value = reader.readBytes(valueLength) else { return nil }
        return Field(key: key, writtenAt: writtenAt, value: value)
    }

    /// The key and value of the field at `index` in key order (its time skipped), or
    /// nil when its entry is damaged: what reads look fields up with. Lengths of one
    /// byte (keys and values under 128 bytes) are read straight; longer ones through
    /// `ByteReader`.
    @inline(__always)
    func entry(at index: Int) -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        guard index >= 0, index < count, let base = bytes.baseAddress else { return nil }
        let end = bytes.count
        var position = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: tableOffset &+ index &* 4, as: UInt32.self)))
        guard position < end else { return nil }
        var keyLength = Int(base.load(fromByteOffset: position, as: UInt8.self))
        if keyLength < 0x80 {
            position &+= 1
        } else {
            var reader = ByteReader(bytes, at: position)
            guard let length = reader.readLength() else { return nil }
            keyLength = length
            position = reader.offset
        }
        guard keyLength < end &- position else { return nil }
        let key = UnsafeRawBufferPointer(start: base + position, count: keyLength)
        position &+= keyLength
        let flags = base.load(fromByteOffset: position, as: UInt8.self)
        position &+= 1
        if flags == RecordView.hasWrittenAt {
            // The time's varint ends at its first byte below 0x80: found in one word.
            let stops = position &+ 8 <= end ? ~base.loadUnaligned(fromByteOffset: position, as: UInt64.self) & 0x8080_8080_8080_8080 : 0
            if stops != 0 {
                position &+= stops.trailingZeroBitCount &>> 3 &+ 1
            } else {
                let limit = Swift.min(end, position &+ 10)
                while position < limit, base.load(fromByteOffset: position, as: UInt8.self) >= 0x80 { position &+= 1 }
                guard position < limit else { return nil }
                position &+= 1
            }
        } else if flags != 0 {
            return nil
        }
        guard position < end else { return nil }
        var valueLength = Int(base.load(fromByteOffset: position, as: UInt8.self))
        if valueLength < 0x80 {
            position &+= 1
        } else {
            var reader = ByteReader(bytes, at: position)
            guard let length = reader.readLength() else { return nil }
            valueLength = length
            position = reader.offset
        }
        guard valueLength <= end &- position else { return nil }
        return (key, UnsafeRawBufferPointer(start: base + position, count: valueLength))
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
