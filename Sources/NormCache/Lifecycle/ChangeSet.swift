/// What one commit changed, as every path that changes data notes it in its write
/// transaction (`StoreTransaction.changes`): fields of records, whole records, key
/// prefixes, or everything. It is kept in the bytes the commit log stores
/// (`CommitLog`) and the watchers are woken by, so a write pays one append per
/// changed field and nothing more.
///
/// The bytes are a run of entries, each a kind byte and a length-prefixed key:
/// `record` names the record the `field` entries after it belong to (a record's
/// fields are noted together, so its key is written once), `wholeRecord` a record
/// created, replaced or removed as a whole, `prefix` every record whose key starts
/// with it.
/// A change set past `maximumBytes` (or one that noted `everything`) keeps no keys:
/// it stands for "anything may have changed".
///
/// A change set is filled by the one thread that holds its write transaction, and only
/// read once that transaction has committed (the watchers, eviction), never changed
/// again. So its properties are not checked for overlapping access at run time
/// (`@exclusivity(unchecked)`): those checks cost more than the append they guard, on
/// every record a write notes.
final class ChangeSet {
    /// The kinds of entries.
    enum Kind: UInt8 {
        case record = 1
        case field = 2
        case wholeRecord = 3
        case prefix = 4
    }

    /// The largest change set kept key by key; past it, the set is `everything`.
    static let maximumBytes = 4 << 20

    /// The entries, in the order they were noted.
    @exclusivity(unchecked) private(set) var bytes = ByteBuffer()
    /// Where the key of the last `record` entry starts in `bytes`, and its length.
    @exclusivity(unchecked) private var lastRecord = (start: 0, count: -1)
    /// Whether anything may have changed (`clear`, or more changes than `maximumBytes`).
    @exclusivity(unchecked) private(set) var isEverything = false
    /// The fields noted as changed (for a whole record the fields given, else one; for a
    /// prefix or everything, one).
    @exclusivity(unchecked) private(set) var changeCount = 0

    /// Whether nothing was noted.
    var isEmpty: Bool { changeCount == 0 }

    /// Notes the field `field` of the record `record` as changed.
    func noteField(record: UnsafeRawBufferPointer, field: UnsafeRawBufferPointer) {
        changeCount += 1
        guard !isEverything else { return }
        if !isLastRecord(record) {
            append(.record, record)
            lastRecord = (bytes.count - record.count, record.count)
        }
        append(.field, field)
    }

    /// Notes the record `record` as created, replaced or removed as a whole: every field
    /// of it may have changed (`fields` of them, when known, for `changeCount`).
    func noteRecord(_ record: UnsafeRawBufferPointer, fields: Int = 1) {
        changeCount += fields
        guard !isEverything else { return }
        append(.wholeRecord, record)
        lastRecord = (0, -1)
    }

    /// Notes every record whose key starts with `prefix` as changed.
    func notePrefix(_ prefix: UnsafeRawBufferPointer) {
        changeCount += 1
        guard !isEverything else { return }
        append(.prefix, prefix)
        lastRecord = (0, -1)
    }

    /// Notes that anything may have changed.
    func noteEverything() {
        changeCount += 1
        becomeEverything()
    }

    /// Drops what was noted: the write that noted it did not commit.
    func reset() {
        bytes = ByteBuffer()
        lastRecord = (0, -1)
        isEverything = false
        changeCount = 0
    }

    /// Notes everything `other` noted (a call of a transaction of several calls, which
    /// its commit logs once).
    func absorb(_ other: ChangeSet) {
        guard !other.isEmpty else { return }
        changeCount += other.changeCount
        guard !isEverything else { return }
        guard !other.isEverything, bytes.count + other.bytes.count <= Self.maximumBytes else { return becomeEverything() }
        bytes.append(other.bytes.bytes)
        lastRecord = (0, -1)
        if bytes.failedAllocation != 0 { becomeEverything() }
    }

    private func isLastRecord(_ record: UnsafeRawBufferPointer) -> Bool {
        guard lastRecord.count == record.count, let start = bytes.start else { return false }
        return KeyBytes.equal(UnsafeRawBufferPointer(start: start + lastRecord.start, count: lastRecord.count), record)
    }

    private func append(_ kind: Kind, _ key: UnsafeRawBufferPointer) {
        guard bytes.count + key.count + 11 <= Self.maximumBytes else { return becomeEverything() }
        bytes.append(kind.rawValue)
        bytes.appendVarint(UInt64(key.count))
        bytes.append(key)
        if bytes.failedAllocation != 0 { becomeEverything() }
    }

    private func becomeEverything() {
        isEverything = true
        bytes = ByteBuffer()
        lastRecord = (0, -1)
    }
}

extension ChangeSet {
    /// The first byte of a log entry: the entries follow, or anything may have changed.
    enum EntryForm: UInt8 {
        case keys = 0
        case everything = 1
    }

    /// Calls `body` with the commit log entry of this change set: its form byte, then
    /// its entries.
    func withLogEntry<R>(_ body: (UnsafeRawBufferPointer) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        var entry = ByteBuffer(capacity: bytes.count + 1)
        entry.append(isEverything ? EntryForm.everything.rawValue : EntryForm.keys.rawValue)
        if !isEverything { entry.append(bytes.bytes) }
        try entry.check(while: "writing the commit log")
        return try body(entry.bytes)
    }

    /// Calls `visit` with each change of `entry` (a commit log entry, or this set's own
    /// `bytes` with `form`): a field with its record, a whole record, a prefix, or
    /// everything (once, for an entry of that form). Returns false when the entry is
    /// damaged (what it visited before stands).
    static func forEachChange(in entry: UnsafeRawBufferPointer, _ visit: (Change) -> Void) -> Bool {
        var reader = ByteReader(entry)
        guard let form = reader.readByte().flatMap(EntryForm.init(rawValue:)) else { return false }
        guard form == .keys else {
            visit(.everything)
            return reader.isAtEnd
        }
        return forEachChange(entries: &reader, visit)
    }

    /// `forEachChange(in:_:)` for this set, as it stands.
    func forEachChange(_ visit: (Change) -> Void) {
        guard !isEverything else { return visit(.everything) }
        var reader = ByteReader(bytes.bytes)
        _ = Self.forEachChange(entries: &reader, visit)
    }

    private static func forEachChange(entries reader: inout ByteReader, _ visit: (Change) -> Void) -> Bool {
        var record: UnsafeRawBufferPointer?
        while !reader.isAtEnd {
            guard let kind = reader.readByte().flatMap(Kind.init(rawValue:)), let length = reader.readLength(),
                  let key = reader.readBytes(length) else { return false }
            switch kind {
            case .record: record = key
            case .field:
                guard let record else { return false }
                visit(.field(record: record, field: key))
            case .wholeRecord: visit(.record(key))
            case .prefix: visit(.prefix(key))
            }
        }
        return true
    }

    /// One change, its keys borrowed for the visit.
    enum Change {
        case field(record: UnsafeRawBufferPointer, field: UnsafeRawBufferPointer)
        case record(UnsafeRawBufferPointer)
        case prefix(UnsafeRawBufferPointer)
        case everything
    }
}
