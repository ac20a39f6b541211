import Glibc

/// One value of a scanned JSON document, in a flat array (a "tape", `JSONTape`):
/// containers are followed by their contents, and `end` is the index just past a
/// value's subtree, so a whole value can be skipped in one step. Sixteen bytes: the
/// kind and the escape flag share a word with `end`.
struct JSONToken {
    /// The kind of value.
    enum Kind: UInt8 {
        case null, `false`, `true`, number, string, array, object
    }

    /// The most tokens a document may have (`end` keeps 28 bits).
    static let maximumCount = (1 << 28) - 1

    /// Byte offset of the value in the input; for strings, of the first byte after
    /// the opening quote.
    var offset: UInt32
    /// For numbers and strings: the byte length of the raw text (strings without
    /// quotes). For arrays: the element count; for objects: the member count.
    var length: UInt32
    /// `end` in the low 28 bits, the kind in the next 3, the escape flag in the top one.
    private var packed: UInt32
    /// For arrays and objects: the byte offset of the closing bracket.
    var closeOffset: UInt32

    /// A token of `kind` at `offset`.
    @inline(__always)
    init(kind: Kind, hasEscapes: Bool = false, offset: UInt32, length: UInt32, end: UInt32, closeOffset: UInt32 = 0) {
        self.offset = offset
        self.length = length
        packed = end | UInt32(kind.rawValue) << 28 | (hasEscapes ? 1 << 31 : 0)
        self.closeOffset = closeOffset
    }

    /// The kind of value.
    @inline(__always)
    var kind: Kind { Kind(rawValue: UInt8(truncatingIfNeeded: packed >> 28 & 7)).assumedPresent }

    /// For strings: whether the text holds escapes that decoding must resolve.
    @inline(__always)
    var hasEscapes: Bool { packed & 1 << 31 != 0 }

    /// The index of the token just past this value and everything inside it.
    @inline(__always)
    var end: UInt32 {
        get { packed & 0x0FFF_FFFF }
        set { packed = packed & 0xF000_0000 | newValue }
    }
}

/// The tokens of a scanned document, in one malloc'd block.
final class JSONTape: RandomAccessCollection, @unchecked Sendable {
    private let base: UnsafeMutablePointer<JSONToken>
    private let capacity: Int
    /// The number of tokens.
    let count: Int

    /// Takes over `count` tokens at `base`, a malloc'd block of `capacity` tokens that it
    /// lets go of (`BlockPool.release`).
    init(taking base: UnsafeMutablePointer<JSONToken>, count: Int, capacity: Int) {
        self.base = base
        self.count = count
        self.capacity = capacity
    }

    deinit { BlockPool.shared.release(base, capacity: capacity * MemoryLayout<JSONToken>.stride) }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// The tokens in place, valid while the tape lives.
    var buffer: UnsafeBufferPointer<JSONToken> { UnsafeBufferPointer(start: base, count: count) }

    /// The token at `index`.
    @inline(__always)
    subscript(index: Int) -> JSONToken {
        precondition(index >= 0 && index < count, "JSON token index out of range")
        return base[index]
    }
}
