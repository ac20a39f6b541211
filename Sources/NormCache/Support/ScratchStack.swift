import Glibc

/// A stack of plain values in one malloc'd block, for the frames of a recursive walk
/// (a response path, the stored values of the objects being read): pushing and popping
/// cost no uniqueness check and no reference counting.
struct ScratchStack<Element: BitwiseCopyable>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>?
    /// The elements on the stack.
    private(set) var count = 0
    private var capacity = 0

    init() {}

    deinit { free(base) }

    /// The element at `index` (from the bottom).
    @inline(__always)
    subscript(index: Int) -> Element {
        get { base.unsafelyUnwrapped[index] }
        set { base.unsafelyUnwrapped[index] = newValue }
    }

    /// Pushes one element.
    @inline(__always)
    mutating func push(_ element: Element) {
        if count == capacity { grow(toHold: count + 1) }
        base.unsafelyUnwrapped[count] = element
        count &+= 1
    }

    /// Pushes `added` copies of `element`; returns the index of the first.
    @inline(__always)
    mutating func push(count added: Int, filling element: Element) -> Int {
        let first = count
        if capacity - count < added { grow(toHold: count + added) }
        (base.unsafelyUnwrapped + first).update(repeating: element, count: added)
        count &+= added
        return first
    }

    /// Pops the top element.
    @inline(__always)
    mutating func popOne() {
        count &-= 1
    }

    /// Pops down to `height` elements.
    @inline(__always)
    mutating func pop(to height: Int) {
        count = height
    }

    private mutating func grow(toHold needed: Int) {
        let wanted = Swift.max(needed, Swift.max(16, capacity * 2))
        guard let grown = realloc(base, wanted * MemoryLayout<Element>.stride) else {
            fatalError("normcache: out of memory growing a stack to \(wanted) elements")
        }
        base = grown.assumingMemoryBound(to: Element.self)
        capacity = wanted
    }
}
