/// The records of a long list of references, looked up a few elements ahead of the one
/// being read, with their bytes asked of the CPU's cache.
///
/// Over a file larger than the CPU's caches, each record a list refers to is a B-tree
/// search and a record out of the cache: one element at a time, every one of those
/// waits on memory. Looked up `distance` elements ahead, the searches and the record's
/// cache lines of the next elements are under way while the reader writes this one.
/// The reader uses it for the lists whose records it does not keep in its
/// `RecordCache` (each referred to once, like the posts of a feed).
///
/// It changes nothing of what a read returns or throws: an element that is not a
/// reference, or whose lookup fails, is left to the reader, which looks it up in its turn
/// and meets the same error there.
struct ListLookahead {
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

    /// How many elements ahead of the one being read the records are looked up (a power of two).
    static var distance: Int { Slots.count }
    /// The shortest list worth looking ahead in.
    static let minimumCount = 16

    /// The elements not scanned yet.
    private var scanner: ByteReader
    /// The position of the next element to scan.
    private var scanned: Int
    /// The list's length.
    private let count: Int
    /// What was found for the last `distance` elements scanned, by position modulo `distance`.
    private var slots = Slots(repeating: .notLookedUp)

    /// A lookahead over the elements of a list of `count` from position `position` on,
    /// whose bytes `rest` starts at.
    init(_ rest: ByteReader, from position: Int, count: Int) {
        scanner = rest
        scanned = position
        self.count = count
    }

    /// Looks up the records of the elements from the next one not scanned to the
    /// `distance` elements from `position` on (within the list): the slots hold those.
    @inline(__always)
    mutating func lookUp(from position: Int, with lookup: inout RecordLookup) {
        let end = Swift.min(count, position &+ Self.distance)
        while scanned < end {
            slots[scanned & (Self.distance - 1)] = scanElement(with: &lookup)
            scanned &+= 1
        }
    }

    /// What was found for the element at `position`, which `lookUp` has scanned.
    @inline(__always)
    func found(at position: Int) -> Found {
        slots[position & (Self.distance - 1)]
    }

    /// Reads the next element: a reference is looked up and its record's lines asked for;
    /// anything else is skipped. Damaged bytes end the scan (the reader meets them in
    /// its turn).
    private mutating func scanElement(with lookup: inout RecordLookup) -> Found {
        let start = scanner.offset
        if scanner.readByte() == FieldValue.Tag.reference.rawValue,
           let length = scanner.readLength(), let key = scanner.readBytes(length), !key.isEmpty {
            do {
                guard let record = try lookup.record(key) else { return .absent }
                CacheLines.prefetchAll(record)
                return .record(record)
            } catch {
                return .notLookedUp
            }
        }
        scanner.offset = start
        if !FieldValue.skip(&scanner) { scanned = count }
        return .notLookedUp
    }
}
