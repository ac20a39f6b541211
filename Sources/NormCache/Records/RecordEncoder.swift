/// Writes records in their stored layout (see `RecordView`): a new record straight into
/// the space the store reserves for it, or the merge of incoming fields into a stored
/// record. Every incoming field is stamped with the write's time.
struct RecordEncoder {
    /// The write's time, in seconds since 1970.
    let writtenAt: UInt64
    private let timeLength: Int
    /// The time's varint, its first eight bytes in one word (a time of up to 2^56).
    private let timeWord: UInt64

    /// An encoder stamping `writtenAt`.
    init(writtenAt: UInt64) {
        self.writtenAt = writtenAt
        timeLength = Varint.length(writtenAt)
        var word: (UInt64, UInt16) = (0, 0)
        _ = withUnsafeMutableBytes(of: &word) { Varint.write(writtenAt, to: $0.baseAddress.assumedPresent) }
        timeWord = word.0
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
            position = writeEntry(key: field.keyBytes, writtenAt: writtenAt, value: batch.value(of: field), to: out, at: position)
        }
    }

    /// Merges `incoming` (ascending keys, unique; values in `batch`) into the stored
    /// `record`: an incoming field replaces the stored one, stored fields not incoming
    /// stay. Calls `changed` with the index in `incoming` of each field whose value is
    /// new. Returns true, with the merged record in `out`, when the record must be
    /// rewritten (a value changed, or a time is not the write's); false when the stored
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
                mergedSize &+= Self.entryLength(keyCount: field.key.count, timeLength: Varint.length(field.writtenAt), valueCount: field.value.count)
                stored &+= 1
                continue
            }
            let new = incoming[next]
            if let field = storedField, KeyBytes.equal(field.key, new.keyBytes) {
                stored &+= 1
                let same = KeyBytes.equal(field.value, batch.value(of: new))
                if !same { changed(next) }
                if !same || field.writtenAt != writtenAt { needsRewrite = true }
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
                position = writeEntry(key: field.key, writtenAt: field.writtenAt, value: field.value, to: base, at: position)
                stored &+= 1
                continue
            }
            if let field = storedField, KeyBytes.equal(field.key, incoming[next].keyBytes) { stored &+= 1 }
            position = writeEntry(key: incoming[next].keyBytes, writtenAt: writtenAt, value: batch.value(of: incoming[next]),
                                  to: base, at: position)
            next &+= 1
        }
        out.advance(by: size)
        return true
    }

    /// Writes `record` without its field at `index` (which is below `record.count`) into
    /// `out` (emptied first): every other field with its own time, in the same order. Throws `.notACache` when the
    /// record is damaged, `.outOfMemory` when `out` cannot hold the result.
    func write(_ record: RecordView, removing index: Int, into out: inout ByteBuffer,
               key: UnsafeRawBufferPointer) throws(NormCacheError) {
        var size = Self.headerLength(record.count &- 1)
        for position in 0..<record.count where position != index {
            guard let field = record.field(at: position) else { throw Self.damaged(key, field: position, of: record.count) }
            size &+= Self.entryLength(keyCount: field.key.count, timeLength: Varint.length(field.writtenAt), valueCount: field.value.count)
        }
        out.removeAll()
        guard let base = out.reserve(size) else {
            throw .outOfMemory(allocating: out.failedAllocation, while: "removing a field of the record '\(KeyBytes.preview(key))'")
        }
        var table = Self.writeHeader(count: record.count &- 1, to: base)
        var position = Self.headerLength(record.count &- 1)
        // The fields were read once already, so they are whole.
        for stored in 0..<record.count where stored != index {
            guard let field = record.field(at: stored) else { continue }
            (base + table).storeBytes(of: UInt32(truncatingIfNeeded: position).littleEndian, as: UInt32.self)
            table &+= 4
            position = writeEntry(key: field.key, writtenAt: field.writtenAt, value: field.value, to: base, at: position)
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
        Self.entryLength(keyCount: keyCount, timeLength: timeLength, valueCount: valueCount)
    }

    @inline(__always)
    private static func entryLength(keyCount: Int, timeLength: Int, valueCount: Int) -> Int {
        Varint.length(UInt64(keyCount)) &+ keyCount &+ 1 &+ timeLength &+ Varint.length(UInt64(valueCount)) &+ valueCount
    }

    /// Writes one entry at `out + position`; returns the position after it.
    @inline(__always)
    private func writeEntry(key: UnsafeRawBufferPointer, writtenAt: UInt64, value: UnsafeRawBufferPointer,
                            to out: UnsafeMutableRawPointer, at position: Int) -> Int {
        var position = position
        position &+= Self.writeLength(key.count, to: out + position)
        if let base = key.baseAddress { (out + position).copyExactly(from: base, count: key.count) }
        position &+= key.count
        (out + position).storeBytes(of: RecordView.hasWrittenAt, as: UInt8.self)
        position &+= 1
        if writtenAt == self.writtenAt, timeLength <= 8 {
            withUnsafeBytes(of: timeWord) { (out + position).copyExactly(from: $0.baseAddress.assumedPresent, count: timeLength) }
            position &+= timeLength
        } else {
            position &+= Varint.write(writtenAt, to: out + position)
        }
        position &+= Self.writeLength(value.count, to: out + position)
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
