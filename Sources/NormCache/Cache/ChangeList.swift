/// The fields one write changed, noted as the merge meets them (in key order) and given
/// back in input order, to be named by `ChangedFields`.
///
/// A field's place in the input (`RecordBatch.Field.order`) is unique and, but for
/// fields that a record given again replaced, dense: each change goes to its place in a
/// table of them, which one pass then packs back in order (linear, where a sort of
/// 100,000 changes took milliseconds, and no lookup through a second table as the names
/// are written). A few changes among many places (the last place past four times the
/// changes and 1,024 more) are sorted instead. Both blocks come from the `BlockPool`, so a process that
/// writes again and again faults in no fresh pages for them.
struct ChangeList: ~Copyable {
    /// A changed field: its place in the input, its record and its index in the batch's
    /// fields.
    struct Change {
        var order: UInt32
        var record: Int32
        var field: UInt32
    }

    /// The changes as noted; after `putInInputOrder`, in input order.
    private var changes = PlainArray<Change>()
    /// The last place of a change.
    private var lastPlace: UInt32 = 0
    /// The bytes of the changes' names, `recordKey.fieldKey`, the dots included.
    private(set) var nameBytes = 0

    /// A list with room for `capacity` changes (a batch's fields: at most every one
    /// changes), so that it is not copied as it grows; throws `.outOfMemory` when that
    /// cannot be had.
    init(capacity: Int) throws(NormCacheError) {
        try changes.reserve(capacity, while: "listing the changed fields")
    }

    /// The changes noted.
    var count: Int { changes.count }

    /// Forgets the changes noted (a transaction tried again notes them anew).
    mutating func removeAll() {
        changes.truncate(to: 0)
        lastPlace = 0
        nameBytes = 0
    }

    /// Notes that `field`, at `index` in the batch's fields, of the record at `record`,
    /// whose key is `keyCount` bytes long, changed.
    @inline(__always)
    mutating func note(_ field: RecordBatch.Field, at index: UInt32, record: Int32, keyCount: Int) {
        changes.append(Change(order: field.order, record: record, field: index))
        lastPlace = max(lastPlace, field.order)
        nameBytes &+= keyCount &+ 1 &+ Int(field.keyCount)
    }

    /// Puts the changes in input order; throws `.outOfMemory` when the table of their
    /// places cannot be had.
    mutating func putInInputOrder() throws(NormCacheError) {
        let places = Int(lastPlace) + 1
        guard places < 4 * changes.count + 1024 else {
            var noted = changes.elements(0..<changes.count)
            noted.sort { $0.order < $1.order }
            return
        }
        // Each change at its place; `record` -1 where none is.
        var byPlace = PlainArray<Change>()
        try byPlace.reserve(places, while: "ordering the changed fields")
        _ = byPlace.append(count: places, filling: Change(order: 0, record: -1, field: 0))
        for index in 0..<changes.count {
            let change = changes[index]
            internalCheck(byPlace[Int(change.order)].record < 0, "two changed fields at input place \(change.order)")
            byPlace[Int(change.order)] = change
        }
        var packed = 0
        for place in 0..<places where byPlace[place].record >= 0 {
            changes[packed] = byPlace[place]
            packed &+= 1
        }
        internalCheck(packed == changes.count, "\(packed) changed fields placed of \(changes.count) noted")
    }

    /// The change at `position` (in input order after `putInInputOrder`).
    @inline(__always)
    subscript(position: Int) -> Change { changes[position] }
}
