import Glibc

/// A growable array of plain values (no references) in one malloc'd block (large ones
/// from the `BlockPool`), for the inner loops: appending, truncating and subscripting cost no uniqueness check and no
/// reference counting, unlike `Array`. Used as a stack for the frames of a recursive
/// walk and as the table of a write batch.
struct PlainArray<Element: BitwiseCopyable>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>?
    /// The elements.
    private(set) var count = 0
    private var capacity = 0

    init() {}

    deinit {
        if let base { BlockPool.shared.release(base, capacity: capacity * MemoryLayout<Element>.stride) }
    }

    /// The element at `index`.
    @inline(__always)
    subscript(index: Int) -> Element {
        get { base.unsafelyUnwrapped[index] }
        set { base.unsafelyUnwrapped[index] = newValue }
    }

    /// The address of the element at `index`, valid until the array grows.
    @inline(__always)
    func address(of index: Int) -> UnsafeMutablePointer<Element> {
        base.unsafelyUnwrapped + index
    }

    /// The elements `range`, valid until the array grows.
    func elements(_ range: Range<Int>) -> UnsafeMutableBufferPointer<Element> {
        UnsafeMutableBufferPointer(start: base.map { $0 + range.lowerBound }, count: range.count)
    }

    /// Appends one element.
    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow(toHold: count + 1) }
        base.unsafelyUnwrapped[count] = element
        count &+= 1
    }

    /// Appends `added` copies of `element`; returns the index of the first.
    @inline(__always)
    mutating func append(count added: Int, filling element: Element) -> Int {
        let first = count
        if capacity - count < added { grow(toHold: count + added) }
        (base.unsafelyUnwrapped + first).update(repeating: element, count: added)
        count &+= added
        return first
    }

    /// Removes the last element.
    @inline(__always)
    mutating func removeLast() {
        count &-= 1
    }

    /// Keeps the first `length` elements.
    @inline(__always)
    mutating func truncate(to length: Int) {
        count = length
    }

    private mutating func grow(toHold needed: Int) {
        let wanted = Swift.max(needed, Swift.max(16, capacity * 2))
        let stride = MemoryLayout<Element>.stride
        let (grown, bytes) = BlockPool.shared.resize(base, used: count * stride, capacity: capacity * stride, to: wanted * stride)
        base = grown.bindMemory(to: Element.self, capacity: bytes / stride)
        capacity = bytes / stride
    }
}
