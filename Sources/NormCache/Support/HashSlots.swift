import Glibc

/// The slots of an open-addressing hash table over keys: a power-of-two count of them,
/// how many are taken, and the seed the table hashes keys with. The tables (`RecordIndex`,
/// `RecordCache`) decide what a slot holds and how they probe.
struct HashSlots<Slot>: ~Copyable {
    /// The slots (malloc'd); nil until the first `double`.
    private var base: UnsafeMutablePointer<Slot>?
    /// The slot count less one: a hash masked with it is a slot index.
    private(set) var mask = 0
    /// The slots taken.
    var used = 0
    /// The seed of `KeyBytes.hash` for this table.
    let seed = KeyBytes.seed

    init() {}

    deinit { free(base) }

    /// The number of slots.
    var count: Int { base == nil ? 0 : mask + 1 }

    /// Whether the table has no slots yet.
    var isEmpty: Bool { base == nil }

    /// Whether taking one more slot would fill the table past half.
    var isFull: Bool { (used + 1) * 2 > mask + 1 }

    /// The slot at `index` (a hash masked with `mask`).
    @inline(__always)
    subscript(index: Int) -> Slot {
        get {
            internalCheck(index >= 0 && index < count, "hash slot \(index) outside 0..<\(count)")
            return base.assumedPresent[index]
        }
        nonmutating set {
            internalCheck(index >= 0 && index < count, "hash slot \(index) outside 0..<\(count)")
            base.assumedPresent[index] = newValue
        }
    }

    /// The address of the slot at `index`, for a prefetch.
    @inline(__always)
    func address(of index: Int) -> UnsafeMutablePointer<Slot> {
        internalCheck(index >= 0 && index < count, "hash slot \(index) outside 0..<\(count)")
        return base.assumedPresent + index
    }

    /// Makes the table twice as large (at least `minimum` slots), every slot `empty`;
    /// returns the old slots, for the caller to place again and then `discard`, or nil
    /// when there were none. Throws `.outOfMemory` (the table as it was) when the new
    /// slots cannot be had.
    mutating func double(minimum: Int, empty: Slot) throws(NormCacheError) -> UnsafeMutableBufferPointer<Slot>? {
        let newCount = Swift.max(minimum, count * 2)
        let bytes = newCount * MemoryLayout<Slot>.stride
        guard let slots = malloc(bytes)?.bindMemory(to: Slot.self, capacity: newCount) else {
            throw .outOfMemory(allocating: bytes, while: "growing a hash table")
        }
        slots.initialize(repeating: empty, count: newCount)
        let old = base.map { UnsafeMutableBufferPointer(start: $0, count: count) }
        base = slots
        mask = newCount - 1
        return old
    }

    /// Frees slots that `double` handed back.
    static func discard(_ slots: UnsafeMutableBufferPointer<Slot>) {
        free(slots.baseAddress)
    }
}
