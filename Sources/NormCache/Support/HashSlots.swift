/// The slots of an open-addressing hash table over keys: a power-of-two count of them,
/// how many are taken, and the seed the table hashes keys with. The tables (`RecordIndex`,
/// `RecordCache`) decide what a slot holds and how they probe.
struct HashSlots<Slot>: ~Copyable {
    /// The slots; nil until the first `replace`.
    private(set) var base: UnsafeMutablePointer<Slot>?
    /// The slot count less one: a hash masked with it is a slot index.
    private(set) var mask = 0
    /// The slots taken.
    var used = 0
    /// The seed of `KeyBytes.hash` for this table.
    let seed = KeyBytes.seed

    init() {}

    deinit { base?.deallocate() }

    /// The number of slots.
    var count: Int { base == nil ? 0 : mask + 1 }

    /// Whether taking one more slot would fill the table past half.
    var isFull: Bool { (used + 1) * 2 > mask + 1 }

    /// Makes the table twice as large (at least `minimum` slots), every slot `empty`;
    /// returns the old slots and their count, for the caller to place again and
    /// deallocate, or nil when there were none.
    mutating func double(minimum: Int, empty: Slot) -> (slots: UnsafeMutablePointer<Slot>, count: Int)? {
        let old = base, oldCount = count
        let newCount = Swift.max(minimum, oldCount * 2)
        base = .allocate(capacity: newCount)
        base.unsafelyUnwrapped.initialize(repeating: empty, count: newCount)
        mask = newCount - 1
        return old.map { ($0, oldCount) }
    }
}
