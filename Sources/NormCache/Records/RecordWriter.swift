/// Builds an encoded record (see `RecordView` for the layout) from fields given in
/// ascending key order.
struct RecordWriter {
    private var entries: [UInt8] = []
    private var offsets: [Int] = []

    /// A writer expecting about `fieldCapacity` fields.
    init(fieldCapacity: Int) {
        offsets.reserveCapacity(fieldCapacity)
    }

    /// Appends the next field; keys must arrive in ascending byte order.
    mutating func append<Key: Collection, Value: Collection>(key: Key, writtenAt: UInt64, value: Value)
    where Key.Element == UInt8, Value.Element == UInt8 {
        offsets.append(entries.count)
        entries.appendLengthPrefixed(key)
        entries.append(RecordView.hasWrittenAt)
        entries.appendVarint(writtenAt)
        entries.appendLengthPrefixed(value)
    }

    /// Forgets the fields so far, keeping the buffers, for the next record.
    mutating func reset() {
        entries.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
    }

    /// The encoded record in `out` (replacing what it held, keeping its buffer); records
    /// are limited to 4 GiB by their offset table.
    func finish(into out: inout [UInt8]) throws(NormCacheError) {
        out.removeAll(keepingCapacity: true)
        out.append(RecordView.format)
        out.appendVarint(UInt64(offsets.count))
        let headerLength = out.count + offsets.count * 4
        guard headerLength + entries.count <= Int(UInt32.max) else {
            throw NormCacheError(.invalidArgument, "a record of \(headerLength + entries.count) bytes is larger than the 4 GiB limit")
        }
        out.reserveCapacity(headerLength + entries.count)
        for offset in offsets { out.appendUInt32(UInt32(truncatingIfNeeded: headerLength + offset)) }
        out.append(contentsOf: entries)
    }
}
