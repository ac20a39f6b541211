/// The records of a list of references, looked up in the order of their keys before the
/// reader writes the elements, with their bytes asked of the CPU's cache a few elements
/// ahead.
///
/// Each record a list refers to is a B-tree search and a record's bytes. One element at a
/// time, in list order, every search starts again from the root and lands on a page
/// anywhere in the file, and every one waits on memory that the writes before left cold.
/// A list of `minimumCount` elements or more has all its records looked up as the reader
/// enters it, in key order, where one search after another stays on the same B-tree
/// pages (LMDB's cursor looks on its current leaf page first), records that lie side by
/// side are found by a step to the next entry (`RecordLookup.record`), and the pages
/// are read in the order they lie; the repeats of a key, next to each other then, are
/// looked up once.
/// The reader then writes the elements in list order, and the bytes of the record
/// `distance` elements on are asked for while it writes one. Records found so do not go
/// through the reader's `RecordCache`: the key order already finds each repeat once.
///
/// It changes nothing of what a read returns or throws: an element that is not a
/// reference, or whose lookup fails, is left to the reader, which looks it up in its turn
/// and meets the same error there.
struct ListLookahead: ~Copyable {
    /// What the lookahead knows of one element.
    enum Found {
        /// Not looked up: the reader reads the element itself.
        case notLookedUp
        /// A reference to the record of these stored bytes.
        case record(UnsafeRawBufferPointer)
        /// A reference to a record the cache does not hold.
        case absent
    }

    /// How many elements ahead of the one being written a record's bytes are asked for.
    static let distance = 8
    /// The shortest list worth looking up in key order: below it, sorting the keys costs
    /// about what the searches it spares would (a C driver, reads of a feed of 100
    /// posts took the same time either way; of 300 posts, 14 % less in key order).
    static let minimumCount = 64

    /// Whether the list's records were looked up: the reader asks the lookahead, else
    /// reads each element itself.
    var isActive: Bool { inKeyOrder.count > 0 }
    /// What was found for each element of the list, by position.
    private var inKeyOrder = PlainArray<Found>()

    /// A lookahead not started: the reader reads each element itself.
    init() {}

    /// Looks up the records of the `count` elements of a list, whose bytes `elements`
    /// starts at, in key order in `lookup`, passing `interrupt` once a record. A list
    /// whose count cannot be right (more elements than bytes: a damaged record, which
    /// the reader meets), or one for which memory cannot be had, is left inactive.
    mutating func start(_ elements: ByteReader, count: Int, lookup: inout RecordLookup,
                        interrupt: inout InterruptCheck) throws(NormCacheError) {
        // Every element takes a byte at least: a count beyond the bytes left is a damaged
        // record (the reader meets it), not room to reserve.
        guard count > 0, count <= elements.bytes.count &- elements.offset, count <= Int32.max else { return }
        try lookUpInKeyOrder(elements, count: count, with: &lookup, interrupt: &interrupt)
    }

    /// What was found for the element at `position`; asks for the bytes of the record
    /// `distance` elements on.
    @inline(__always)
    func found(at position: Int) -> Found {
        let ahead = position &+ Self.distance
        if ahead < inKeyOrder.count, case .record(let record) = inKeyOrder[ahead] { CacheLines.prefetchAll(record) }
        return inKeyOrder[position]
    }

    /// The record found for the element at `position`, if the lookahead found one (nil
    /// past the list's end too).
    @inline(__always)
    func record(at position: Int) -> UnsafeRawBufferPointer? {
        guard position < inKeyOrder.count, case .record(let record) = inKeyOrder[position] else { return nil }
        return record
    }

    /// The key of the element `scanner` is at when it is a reference, moving past it; nil
    /// for anything else, which is skipped (nil and the scanner at its end for damaged
    /// bytes, which end the scan).
    private static func nextKey(_ scanner: inout ByteReader) -> UnsafeRawBufferPointer? {
        let start = scanner.offset
        if let key = FieldValue.referenceKey(&scanner) { return key }
        scanner.offset = start
        if !FieldValue.skip(&scanner) { scanner.offset = scanner.bytes.count }
        return nil
    }

    /// The record `key` in `lookup`; a failed lookup is left to the reader.
    private static func find(_ key: UnsafeRawBufferPointer, with lookup: inout RecordLookup) -> Found {
        do {
            guard let record = try lookup.record(key) else { return .absent }
            return .record(record)
        } catch {
            return .notLookedUp
        }
    }

    /// Scans the elements and looks up the records they refer to in the order of their
    /// keys, each key once; leaves `inKeyOrder` empty when memory for it cannot be had or
    /// no element is a reference (a list of objects kept inside their parent's record).
    private mutating func lookUpInKeyOrder(_ elements: ByteReader, count: Int, with lookup: inout RecordLookup,
                                           interrupt: inout InterruptCheck) throws(NormCacheError) {
        var references = PlainArray<ElementKey>()
        do {
            try references.reserve(count, while: "ordering a list's keys")
            try inKeyOrder.reserve(count, while: "ordering a list's keys")
        } catch {
            return
        }
        _ = inKeyOrder.append(count: count, filling: .notLookedUp)
        var scanner = elements
        for position in 0..<count {
            guard scanner.offset < scanner.bytes.count else { break }
            if let key = Self.nextKey(&scanner), key.count <= Int32.max {
                references.append(ElementKey(start: key.baseAddress.assumedPresent, count: Int32(truncatingIfNeeded: key.count),
                                             position: Int32(truncatingIfNeeded: position)))
            }
        }
        guard references.count > 0 else {
            inKeyOrder.truncate(to: 0)
            return
        }
        var ordered = references.elements(0..<references.count)
        ordered.sort { KeyBytes.compare($0.bytes, $1.bytes) < 0 }
        lookup.beginKeyOrder()
        var previous: (key: UnsafeRawBufferPointer, found: Found)?
        for reference in ordered {
            let key = reference.bytes
            if let previous, KeyBytes.equal(previous.key, key) {
                inKeyOrder[Int(reference.position)] = previous.found
                continue
            }
            try interrupt.pass()
            let found = Self.find(key, with: &lookup)
            inKeyOrder[Int(reference.position)] = found
            previous = (key, found)
        }
    }

    /// The key of a reference in a list and the position of its element.
    private struct ElementKey {
        let start: UnsafeRawPointer
        let count: Int32
        let position: Int32

        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: Int(count)) }
    }
}
