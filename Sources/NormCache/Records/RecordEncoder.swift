/// Writes records in their stored layout (see `RecordView`): a new record straight into
/// the space the store reserves for it, or the merge of incoming fields into a stored
/// record. Every incoming field is stamped with the write's metadata (`FieldMetadata`:
/// its time, and the expiry the write gives); stored fields keep theirs.
struct RecordEncoder {
    /// The metadata of every field the write carries.
    let metadata: FieldMetadata
    /// The metadata's bytes, inline (at most `FieldMetadata.maximumLength`).
    private let metadataBytes: (UInt64, UInt64, UInt64)
    private let metadataLength: Int

    /// An encoder stamping `metadata`.
    init(metadata: FieldMetadata) {
        self.metadata = metadata
        var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)
        metadataLength = withUnsafeMutableBytes(of: &bytes) { metadata.write(to: $0.baseAddress.assumedPresent) }
        metadataBytes = bytes
    }

    /// An encoder stamping the time `writtenAt`, without an expiry.
    init(writtenAt: UInt64) {
        self.init(metadata: FieldMetadata(writtenAt: writtenAt))
    }

    /// The bytes of the new record of `fields` (ascending keys, unique).
    func size(of fields: UnsafeMutableBufferPointer<RecordBatch.Field>) -> Int {
        var size = Self.headerLength(fields.count)
        for field in fields {
            size &+= entryLength(keyCount: Int(field.keyCount), valueCount: Int(field.valueCount))
        }
        return size
    }

    /// Writes the new record of `fields` (values in `batch`) at `out`, which holds
    /// `size(of: fields)` bytes.
    func write(_ fields: UnsafeMutableBufferPointer<RecordBatch.Field>, of batch: borrowing RecordBatch,
               to out: UnsafeMutableRawPointer) {
        var table = Self.writeHeader(count: fields.count, to: out)
        var position = Self.headerLength(fields.count)
        for field in fields {
            (out + table).storeBytes(of: UInt32(truncatingIfNeeded: position).littleEndian, as: UInt32.self)
            table &+= 4
            position = writeEntry(key: field.keyBytes, value: batch.value(of: field), to: out, at: position)
        }
    }

    /// Merges `incoming` (ascending keys, unique; values in `batch`) into the stored
    /// `record`: an incoming field replaces the stored one, stored fields not incoming
    /// stay. Calls `changed` with the index in `incoming` of each field whose value is
    /// new. Returns true, with the merged record in `out`, when the record must be
    /// rewritten (a value changed, or a field's metadata is not the write's: an identical
    /// rewrite refreshes the times without reporting a change); false when the stored
    /// bytes can stay. Throws `.outOfMemory` when `out` cannot hold the merged record.
    func merge(_ record: RecordView, _ incoming: UnsafeMutableBufferPointer<RecordBatch.Field>, of batch: borrowing RecordBatch,
               into out: inout ByteBuffer, key: UnsafeRawBufferPointer,
               changed: (Int) -> Void) throws(NormCacheError) -> Bool {
        // First compare only: an unchanged record is the common rewrite.
        var needsRewrite = false, mergedCount = 0, mergedSize = 0
        var stored = 0, next = 0
        while stored < record.count || next < incoming.count {
            var storedField: RecordView.Field?
            if stored < record.count {
                guard let field = record.field(at: stored) else { throw Self.damaged(key, field: stored, of: record.count) }
                storedField = field
            }
            mergedCount &+= 1
            if let field = storedField, next == incoming.count || KeyBytes.compare(field.key, incoming[next].keyBytes) < 0 {
                mergedSize &+= Self.entryLength(keyCount: field.key.count, metadataLength: field.metadata.count, valueCount: field.value.count)
                stored &+= 1
                continue
            }
            let new = incoming[next]
            if let field = storedField, KeyBytes.equal(field.key, new.keyBytes) {
                stored &+= 1
                let same = KeyBytes.equal(field.value, batch.value(of: new))
                if !same { changed(next) }
                if !same || !hasOwnMetadata(field) { needsRewrite = true }
            } else {
                changed(next)
                needsRewrite = true
            }
            mergedSize &+= entryLength(keyCount: Int(new.keyCount), valueCount: Int(new.valueCount))
            next &+= 1
        }
        guard needsRewrite else { return false }
        let size = Self.headerLength(mergedCount) &+ mergedSize
        try Self.check(size: size, key: key)
        // Then write: the fields were read once already, so they are whole.
        out.removeAll()
        guard let base = out.reserve(size) else {
            throw .outOfMemory(allocating: out.failedAllocation, while: "merging the record '\(KeyBytes.preview(key))' with the stored one")
        }
        var table = Self.writeHeader(count: mergedCount, to: base)
        var position = Self.headerLength(mergedCount)
        stored = 0
        next = 0
        while stored < record.count || next < incoming.count {
            let storedField = stored < record.count ? record.field(at: stored) : nil
            (base + table).storeBytes(of: UInt32(truncatingIfNeeded: position).littleEndian, as: UInt32.self)
            table &+= 4
            if let field = storedField, next == incoming.count || KeyBytes.compare(field.key, incoming[next].keyBytes) < 0 {
                position = Self.writeEntry(key: field.key, metadata: field.metadata, value: field.value, to: base, at: position)
                stored &+= 1
                continue
            }
            if let field = storedField, KeyBytes.equal(field.key, incoming[next].keyBytes) { stored &+= 1 }
            position = writeEntry(key: incoming[next].keyBytes, value: batch.value(of: incoming[next]), to: base, at: position)
            next &+= 1
        }
        out.advance(by: size)
        return true
    }

    /// What `rewrite` does with one stored field.
    enum FieldEdit {
        /// The field stays as stored.
        case keep
        /// The field is left out.
        case drop
        /// The field stays with this metadata instead of its own.
        case metadata(FieldMetadata)
    }

    /// Writes `record` into `out` (emptied first) with each field as `edit` says, in the
    /// same order; returns how many fields it wrote. Throws `.notACache` when the record
    /// is damaged, `.outOfMemory` when `out` cannot hold the result.
    static func rewrite(_ record: RecordView, into out: inout ByteBuffer, key: UnsafeRawBufferPointer,
                        edit: (Int, RecordView.Field) -> FieldEdit) throws(NormCacheError) -> Int {
        var edits: [FieldEdit] = []
        edits.reserveCapacity(record.count)
        var kept = 0, size = 0
        for position in 0..<record.count {
            guard let field = record.field(at: position) else { throw damaged(key, field: position, of: record.count) }
            let change = edit(position, field)
            edits.append(change)
            switch change {
            case .keep: size &+= entryLength(keyCount: field.key.count, metadataLength: field.metadata.count, valueCount: field.value.count)
            case .drop: continue
            case .metadata(let metadata): size &+= entryLength(keyCount: field.key.count, metadataLength: metadata.encodedLength, valueCount: field.value.count)
            }
            kept &+= 1
        }
        size &+= headerLength(kept)
        try check(size: size, key: key)
        out.removeAll()
        guard let base = out.reserve(size) else {
            throw .outOfMemory(allocating: out.failedAllocation, while: "rewriting the record '\(KeyBytes.preview(key))'")
        }
        var table = writeHeader(count: kept, to: base)
        var position = headerLength(kept)
        // The fields were read once already, so they are whole.
        for (index, change) in edits.enumerated() {
            guard let field = record.entry(at: index) else { continue }
            if case .drop = change { continue }
            (base + table).storeBytes(of: UInt32(truncatingIfNeeded: position).littleEndian, as: UInt32.self)
            table &+= 4
            if case .metadata(let metadata) = change {
                var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)
                position = withUnsafeMutableBytes(of: &bytes) { buffer in
                    let length = metadata.write(to: buffer.baseAddress.assumedPresent)
                    return writeEntry(key: field.key, metadata: UnsafeRawBufferPointer(rebasing: buffer.prefix(length)),
                                      value: field.value, to: base, at: position)
                }
            } else {
                position = writeEntry(key: field.key, metadata: field.metadata, value: field.value, to: base, at: position)
            }
        }
        out.advance(by: size)
        return kept
    }

    /// Writes the record of `fields` (keys in ascending byte order, distinct), each
    /// with `metadata` and its encoded value, into `out` (emptied first).
    static func record(fields: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)], metadata: FieldMetadata,
                       into out: inout ByteBuffer, recordKey: UnsafeRawBufferPointer) throws(NormCacheError) {
        internalCheck(zip(fields, fields.dropFirst()).allSatisfy { KeyBytes.compare($0.key, $1.key) < 0 }, "record fields out of order")
        var size = headerLength(fields.count)
        for field in fields {
            size &+= entryLength(keyCount: field.key.count, metadataLength: metadata.encodedLength, valueCount: field.value.count)
        }
        try check(size: size, key: recordKey)
        out.removeAll()
        guard let base = out.reserve(size) else {
            throw .outOfMemory(allocating: out.failedAllocation, while: "writing the record '\(KeyBytes.preview(recordKey))'")
        }
        var table = writeHeader(count: fields.count, to: base)
        var position = headerLength(fields.count)
        var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            let metadataBytes = UnsafeRawBufferPointer(rebasing: buffer.prefix(metadata.write(to: buffer.baseAddress.assumedPresent)))
            for field in fields {
                (base + table).storeBytes(of: UInt32(truncatingIfNeeded: position).littleEndian, as: UInt32.self)
                table &+= 4
                position = writeEntry(key: field.key, metadata: metadataBytes, value: field.value, to: base, at: position)
            }
        }
        out.advance(by: size)
    }

    /// Fails for a record larger than its offset table can address (4 GiB).
    static func check(size: Int, key: UnsafeRawBufferPointer) throws(NormCacheError) {
        guard size <= Int(UInt32.max) else {
            throw NormCacheError(.invalidArgument, "the record '\(KeyBytes.preview(key))' of \(size) bytes is larger than the 4 GiB limit")
        }
    }

    private static func headerLength(_ count: Int) -> Int {
        1 &+ Varint.length(UInt64(count)) &+ 4 &* count
    }

    /// Writes the format byte and the field count; returns where the offset table starts.
    private static func writeHeader(count: Int, to out: UnsafeMutableRawPointer) -> Int {
        out.storeBytes(of: RecordView.format, as: UInt8.self)
        return 1 &+ Varint.write(UInt64(count), to: out + 1)
    }

    @inline(__always)
    private func entryLength(keyCount: Int, valueCount: Int) -> Int {
        Self.entryLength(keyCount: keyCount, metadataLength: metadataLength, valueCount: valueCount)
    }

    @inline(__always)
    private static func entryLength(keyCount: Int, metadataLength: Int, valueCount: Int) -> Int {
        Varint.length(UInt64(keyCount)) &+ keyCount &+ metadataLength &+ Varint.length(UInt64(valueCount)) &+ valueCount
    }

    /// Whether the stored field's metadata is the bytes this write stamps.
    @inline(__always)
    private func hasOwnMetadata(_ field: RecordView.Field) -> Bool {
        withUnsafeBytes(of: metadataBytes) { KeyBytes.equal(field.metadata, UnsafeRawBufferPointer(rebasing: $0.prefix(metadataLength))) }
    }

    /// Writes one entry of an incoming field, stamped with the write's metadata, at
    /// `out + position`; returns the position after it.
    @inline(__always)
    private func writeEntry(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
                            to out: UnsafeMutableRawPointer, at position: Int) -> Int {
        withUnsafeBytes(of: metadataBytes) { bytes in
            Self.writeEntry(key: key, metadata: UnsafeRawBufferPointer(rebasing: bytes.prefix(metadataLength)), value: value, to: out, at: position)
        }
    }

    /// Writes one entry at `out + position`; returns the position after it.
    @inline(__always)
    private static func writeEntry(key: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
                                   to out: UnsafeMutableRawPointer, at position: Int) -> Int {
        var position = position
        position &+= writeLength(key.count, to: out + position)
        if let base = key.baseAddress { (out + position).copyExactly(from: base, count: key.count) }
        position &+= key.count
        if let base = metadata.baseAddress { (out + position).copyExactly(from: base, count: metadata.count) }
        position &+= metadata.count
        position &+= writeLength(value.count, to: out + position)
        if let base = value.baseAddress { (out + position).copyExactly(from: base, count: value.count) }
        return position &+ value.count
    }

    /// Writes a length's varint; returns its bytes.
    @inline(__always)
    private static func writeLength(_ length: Int, to out: UnsafeMutableRawPointer) -> Int {
        guard length >= 0x80 else {
            out.storeBytes(of: UInt8(truncatingIfNeeded: length), as: UInt8.self)
            return 1
        }
        return Varint.write(UInt64(length), to: out)
    }

    private static func damaged(_ key: UnsafeRawBufferPointer, field: Int, of count: Int) -> NormCacheError {
        NormCacheError(.notACache, "record '\(KeyBytes.preview(key))' is damaged (field \(field) of \(count))")
    }
}
