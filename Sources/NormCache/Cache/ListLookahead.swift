/// The records of a long list of references, looked up before the reader reaches their
/// elements, with their bytes asked of the CPU's cache a few elements ahead.
///
/// Over a file larger than the CPU's caches, each record a list refers to is a B-tree
/// search and a record out of the cache: one element at a time, every one of those
/// waits on memory. A list with at least `keyOrderMinimumCount` elements left has all
/// their records looked up first, in key order, where one search after another stays on
/// the same B-tree pages (LMDB's cursor looks on its current leaf page first; repeated
/// keys are next to each other); a shorter one, of `minimumCount` or more, has them
/// looked up `distance` elements ahead. Either way the bytes of the record `distance`
/// elements ahead are asked for while the reader writes this one. The reader looks
/// ahead in the lists whose records it does not keep in its `RecordCache` (each
/// referred to once, like the posts of a feed), and in key order in any list that long.
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

    /// What was found for the last `distance` elements scanned.
    private typealias Slots = InlineArray<8, Found>

    /// How many elements ahead of the one being read the records are looked up, or their
    /// bytes asked for (a power of two).
    static var distance: Int { Slots.count }
    /// The shortest list worth looking ahead in.
    static let minimumCount = 64
    /// The fewest elements left in a list for its records to be looked up in key order.
    static let keyOrderMinimumCount = 4096

    /// Whether `start` was called: the reader asks the lookahead, else reads each element itself.
    private(set) var isActive = false
    /// The elements not scanned yet.
    private var scanner = ByteReader(UnsafeRawBufferPointer(start: nil, count: 0))
    /// The position of the next element to scan.
    private var scanned = 0
    /// The list's length.
    private var count = 0
    /// What was found for the last `distance` elements scanned, by position modulo `distance`.
    private var slots = Slots(repeating: .notLookedUp)
    /// What was found for every element from `first` on, when looked up in key order
    /// (else empty).
    private var inKeyOrder = PlainArray<Found>()
    /// The position the lookahead started at.
    private var first = 0

    /// A lookahead not started: one per list, kept in place (it is large to copy).
    init() {}

    /// Starts looking ahead over the elements of a list of `count` from position
    /// `position` on, whose bytes `rest` starts at. A long rest has its records looked up
    /// now, in key order, in `lookup`, passing `interrupt` once a record; when memory for
    /// that cannot be had, they are looked up ahead as for a shorter list.
    mutating func start(_ rest: ByteReader, from position: Int, count: Int, lookup: inout RecordLookup,
                        interrupt: inout InterruptCheck) throws(NormCacheError) {
        isActive = true
        scanner = rest
        scanned = position
        first = position
        self.count = count
        // Every element takes a byte at least: a count beyond the bytes left is a damaged
        // record (the reader meets it), not room to reserve.
        let left = count &- position
        if left >= Self.keyOrderMinimumCount, left <= rest.bytes.count &- rest.offset, count <= Int32.max {
            try lookUpInKeyOrder(with: &lookup, interrupt: &interrupt)
        }
    }

    /// Looks up the records of the elements from the next one not scanned to the
    /// `distance` elements from `position` on (within the list): the slots hold those.
    /// In key order, asks for the bytes of the record `distance` elements on.
    @inline(__always)
    mutating func lookUp(from position: Int, with lookup: inout RecordLookup) {
        guard inKeyOrder.count == 0 else {
            let ahead = position &+ Self.distance &- first
            if ahead < inKeyOrder.count, case .record(let record) = inKeyOrder[ahead] { CacheLines.prefetchAll(record) }
            return
        }
        let end = Swift.min(count, position &+ Self.distance)
        while scanned < end {
            slots[scanned & (Self.distance - 1)] = scanElement(with: &lookup)
            scanned &+= 1
        }
    }

    /// What was found for the element at `position`, which `lookUp` has scanned.
    @inline(__always)
    func found(at position: Int) -> Found {
        guard inKeyOrder.count == 0 else { return inKeyOrder[position &- first] }
        return slots[position & (Self.distance - 1)]
    }

    /// Reads the next element: a reference is looked up and its record's lines asked for;
    /// anything else is skipped. Damaged bytes end the scan (the reader meets them in
    /// its turn).
    private mutating func scanElement(with lookup: inout RecordLookup) -> Found {
        guard let key = nextKey() else { return .notLookedUp }
        let found = Self.find(key, with: &lookup)
        if case .record(let record) = found { CacheLines.prefetchAll(record) }
        return found
    }

    /// The key of the next element when it is a reference; nil for anything else, which
    /// is skipped (damaged bytes end the scan).
    private mutating func nextKey() -> UnsafeRawBufferPointer? {
        let start = scanner.offset
        if scanner.readByte() == FieldValue.Tag.reference.rawValue,
           let length = scanner.readLength(), let key = scanner.readBytes(length), !key.isEmpty {
            return key
        }
        scanner.offset = start
        if !FieldValue.skip(&scanner) { scanned = count }
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

    /// Scans every element left and looks up the records referred to in the order of
    /// their keys; leaves `inKeyOrder` empty when memory for it cannot be had.
    private mutating func lookUpInKeyOrder(with lookup: inout RecordLookup, interrupt: inout InterruptCheck) throws(NormCacheError) {
        var references = PlainArray<ElementKey>()
        do {
            try references.reserve(count &- first, while: "ordering a list's keys")
            try inKeyOrder.reserve(count &- first, while: "ordering a list's keys")
        } catch {
            return
        }
        _ = inKeyOrder.append(count: count &- first, filling: .notLookedUp)
        while scanned < count {
            let position = scanned
            scanned &+= 1
            if let key = nextKey(), key.count <= Int32.max {
                references.append(ElementKey(start: key.baseAddress.assumedPresent, count: Int32(truncatingIfNeeded: key.count),
                                             position: Int32(truncatingIfNeeded: position &- first)))
            }
        }
        var ordered = references.elements(0..<references.count)
        ordered.sort { KeyBytes.compare($0.bytes, $1.bytes) < 0 }
        for reference in ordered {
            try interrupt.pass()
            inKeyOrder[Int(reference.position)] = Self.find(reference.bytes, with: &lookup)
        }
    }

    /// The key of a reference in a list and its element's position from `first`.
    private struct ElementKey {
        let start: UnsafeRawPointer
        let count: Int32
        let position: Int32

        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: Int(count)) }
    }
}
