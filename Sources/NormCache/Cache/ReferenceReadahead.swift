/// Reads ahead of the reader in a long list, for the records its elements refer to
/// through the `RecordCache` (the author of each post of a feed).
///
/// A `ListLookahead` asks for each element's record a few elements before the reader
/// writes it, but the records that record refers to are known only once the reader is
/// in it: each is a lookup in the record cache (its slot) and then the referred record's
/// bytes, two waits on memory one after the other once the cache and the file are larger
/// than the CPU's caches. So, while the reader writes one element, the record of the
/// element `slotDistance` on is read for its references, and their cache slots are asked
/// for; the references of the element `recordDistance` on, whose slots have arrived by
/// then, are looked up, and the bytes of the records the cache holds for them asked for.
/// When the reader gets to an element, both are in the CPU's cache.
///
/// The references read are those of the element shape's fields that use the record
/// cache, at the places they held in the last record read through the shape
/// (`ObjectShape.lastPositions`): for records of one type, mostly where they are. Each is
/// checked, key and tag, and anything else (another place, a damaged entry, another
/// shape) is passed over: a hint, never a result. It changes nothing of what a read
/// returns or throws.
struct ReferenceReadahead {
    /// A reference read ahead: its key's bytes (in the transaction's map) and hash.
    private struct Reference {
        var key: UnsafeRawPointer?
        var count: Int
        var hash: UInt32
    }

    /// How many elements ahead the references' cache slots are asked for.
    static let slotDistance = 4
    /// How many elements ahead the records the cache holds for them are asked for.
    static let recordDistance = 2
    /// The most references of one element read ahead.
    private static let referencesPerElement = 2
    /// The references of the last `slotDistance` elements read, `referencesPerElement`
    /// places each (an element's places: from its position modulo `slotDistance`, times
    /// `referencesPerElement`; 8 places in all).
    private var references = InlineArray<8, Reference>(repeating: Reference(key: nil, count: 0, hash: 0))
    /// The shape whose reference fields `fieldSlots` names.
    private var slotsShape: UnsafeMutableRawPointer?
    /// That shape's slots in `lookupOrder` of fields that refer to records, the first
    /// `referencesPerElement` of them; -1 past the last.
    private var fieldSlots = InlineArray<2, Int32>(repeating: -1)

    /// A readahead of a list not started.
    init() {}

    /// Reads ahead for the reader at the element `position` of a list whose records
    /// `lookahead` found; `shape` is the shape of its elements (the last one's).
    @inline(__always)
    mutating func readAhead(at position: Int, of lookahead: borrowing ListLookahead, shape: Unmanaged<ObjectShape>,
                            cache: borrowing RecordCache) {
        let near = (position &+ Self.recordDistance) % Self.slotDistance &* Self.referencesPerElement
        for place in near..<near &+ Self.referencesPerElement {
            guard let key = references[place].key else { break }
            if let found = cache.record(UnsafeRawBufferPointer(start: key, count: references[place].count), hash: references[place].hash) {
                CacheLines.prefetchAll(found)
            }
        }
        let far = (position &+ Self.slotDistance) % Self.slotDistance &* Self.referencesPerElement
        var taken = 0
        if let bytes = lookahead.record(at: position &+ Self.slotDistance), let record = RecordView(bytes) {
            shape._withUnsafeGuaranteedRef { shape in
                if slotsShape != Unmanaged.passUnretained(shape).toOpaque() { findFieldSlots(of: shape) }
                for index in 0..<Self.referencesPerElement where fieldSlots[index] >= 0 {
                    let slot = fieldSlots[index]
                    let field = shape.fields.baseAddress.assumedPresent + Int(shape.lookupOrder[Int(slot)])
                    guard field.pointee.usesRecordCache, let entry = record.entry(at: Int(shape.lastPositions[Int(slot)])),
                          KeyBytes.equal(entry.key, field.pointee.storageKey) else { continue }
                    var value = ByteReader(entry.value)
                    guard let key = FieldValue.referenceKey(&value) else { continue }
                    let hash = cache.hash(key)
                    cache.prefetch(hash)
                    references[far &+ taken] = Reference(key: key.baseAddress, count: key.count, hash: hash)
                    taken &+= 1
                }
            }
        }
        for place in (far &+ taken)..<(far &+ Self.referencesPerElement) { references[place].key = nil }
    }

    /// Finds the slots of `shape`'s looked-up fields that refer to records.
    private mutating func findFieldSlots(of shape: ObjectShape) {
        slotsShape = Unmanaged.passUnretained(shape).toOpaque()
        var found = 0
        for slot in 0..<shape.lookupOrder.count where found < Self.referencesPerElement
            && shape.fields[Int(shape.lookupOrder[slot])].plan != nil {
            fieldSlots[found] = Int32(truncatingIfNeeded: slot)
            found &+= 1
        }
        for unused in found..<Self.referencesPerElement { fieldSlots[unused] = -1 }
    }
}
