import Glibc

/// A growable array of plain values (no references) in one malloc'd block (large ones
/// from the `BlockPool`), for the inner loops: appending, truncating and subscripting cost no uniqueness check and no
/// reference counting, unlike `Array`. Used as a stack for the frames of a recursive
/// walk and as the table of a write batch.
///
/// Growth that data drives goes through `reserve(_:while:)`, which fails with
/// `.outOfMemory`; an `append` beyond the room reserved grows the block itself and stops
/// the process when memory cannot be had (for the small stacks of a walk).
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
        get {
            internalCheck(index >= 0 && index < count, "PlainArray index \(index) outside 0..<\(count)")
            return base.assumedPresent[index]
        }
        set {
            internalCheck(index >= 0 && index < count, "PlainArray index \(index) outside 0..<\(count)")
            base.assumedPresent[index] = newValue
        }
    }

    /// The address of the element at `index` (or just past the last), valid until the
    /// array grows.
    @inline(__always)
    func address(of index: Int) -> UnsafeMutablePointer<Element> {
        internalCheck(index >= 0 && index <= count, "PlainArray address of \(index) outside 0...\(count)")
        return base.assumedPresent + index
    }

    /// The elements `range`, valid until the array grows.
    func elements(_ range: Range<Int>) -> UnsafeMutableBufferPointer<Element> {
        internalCheck(range.lowerBound >= 0 && range.upperBound <= count, "PlainArray elements \(range) outside 0..<\(count)")
        return UnsafeMutableBufferPointer(start: base.map { $0 + range.lowerBound }, count: range.count)
    }

    /// Makes room for `extra` more elements, or throws `.outOfMemory` naming `purpose`.
    @inline(__always)
    mutating func reserve(_ extra: Int, while purpose: @autoclosure () -> String) throws(NormCacheError) {
        guard capacity &- count < extra else { return }
        if let failed = grow(toHold: count + extra) { throw .outOfMemory(allocating: failed, while: purpose()) }
    }

    /// Appends one element.
    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { growOrStop(toHold: count + 1) }
        base.assumedPresent[count] = element
        count &+= 1
    }

    /// Appends a copy of `elements`.
    @inline(__always)
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress, !elements.isEmpty else { return }
        if capacity &- count < elements.count { growOrStop(toHold: count + elements.count) }
        (base.assumedPresent + count).update(from: source, count: elements.count)
        count &+= elements.count
    }

    /// Appends `added` copies of `element`; returns the index of the first.
    @inline(__always)
    mutating func append(count added: Int, filling element: Element) -> Int {
        let first = count
        if capacity - count < added { growOrStop(toHold: count + added) }
        (base.assumedPresent + first).update(repeating: element, count: added)
        count &+= added
        return first
    }

    /// Removes the last element.
    @inline(__always)
    mutating func removeLast() {
        internalCheck(count > 0, "removeLast of an empty PlainArray")
        count &-= 1
    }

    /// Keeps the first `length` elements.
    @inline(__always)
    mutating func truncate(to length: Int) {
        internalCheck(length >= 0 && length <= count, "PlainArray truncated to \(length) of \(count)")
        count = length
    }

    /// Grows the block to hold at least `needed` elements; returns the bytes it could
    /// not get, or nil when it grew.
    private mutating func grow(toHold needed: Int) -> Int? {
        let wanted = Swift.max(needed, Swift.max(16, capacity * 2))
        let stride = MemoryLayout<Element>.stride
        guard let (grown, bytes) = BlockPool.shared.reallocate(base, used: count * stride, capacity: capacity * stride, to: wanted * stride) else {
            return wanted * stride
        }
        base = grown.bindMemory(to: Element.self, capacity: bytes / stride)
        capacity = bytes / stride
        return nil
    }

    /// `grow`, stopping the process when memory cannot be had.
    private mutating func growOrStop(toHold needed: Int) {
        if let failed = grow(toHold: needed) {
            fatalError(NormCacheError.outOfMemory(allocating: failed, while: "growing a stack").message)
        }
    }
}
