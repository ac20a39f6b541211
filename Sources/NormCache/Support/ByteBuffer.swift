import Glibc

/// A growable run of bytes in one malloc'd block: what the hot paths write into
/// (read output, encoded records, the write batch). Appending costs no uniqueness check
/// and no reference counting, unlike `[UInt8]`, and the block can be handed to a C
/// caller as it is (`takeBlock`), to be released with `free`.
///
/// Large blocks come from and go back to the `BlockPool`. Like the standard library's
/// collections, it stops the process when memory cannot be had; callers bound what they
/// write (a read's output is limited to 1 GiB).
struct ByteBuffer: ~Copyable {
    /// The start of the block (nil before the first byte is reserved).
    private(set) var start: UnsafeMutableRawPointer?
    /// The bytes written.
    private(set) var count = 0
    /// The bytes the block holds.
    private(set) var capacity = 0

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int = 0) {
        if capacity > 0 { grow(toHold: capacity) }
    }

    deinit {
        if let start { BlockPool.shared.release(start, capacity: capacity) }
    }

    /// The bytes written, valid until the next change.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    /// The bytes written, as an array.
    var array: [UInt8] { Array(bytes) }

    /// Makes room for `extra` more bytes and returns where they go; the caller writes
    /// them and then calls `advance(by:)`.
    @inline(__always)
    mutating func reserve(_ extra: Int) -> UnsafeMutableRawPointer {
        if capacity &- count < extra { grow(toHold: count + extra) }
        return start.unsafelyUnwrapped + count
    }

    /// Counts `written` bytes written after a `reserve`.
    @inline(__always)
    mutating func advance(by written: Int) {
        count &+= written
    }

    /// Appends one byte.
    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1).storeBytes(of: byte, as: UInt8.self)
        count &+= 1
    }

    /// Appends `length` bytes from `source`.
    @inline(__always)
    mutating func append(_ source: UnsafeRawPointer?, count length: Int) {
        guard length > 0, let source else { return }
        reserve(length).copyExactly(from: source, count: length)
        count &+= length
    }

    /// Appends the bytes of `source`.
    @inline(__always)
    mutating func append(_ source: UnsafeRawBufferPointer) {
        append(source.baseAddress, count: source.count)
    }

    /// Appends a sequence of bytes.
    mutating func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if done == nil { for byte in bytes { append(byte) } }
    }

    /// Appends the UTF-8 bytes of a static string.
    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// Appends a LEB128 unsigned integer.
    @inline(__always)
    mutating func appendVarint(_ value: UInt64) {
        let out = reserve(10)
        count &+= Varint.write(value, to: out)
    }

    /// Appends a little-endian UInt32.
    @inline(__always)
    mutating func appendUInt32(_ value: UInt32) {
        reserve(4).storeBytes(of: value.littleEndian, as: UInt32.self)
        count &+= 4
    }

    /// Overwrites four bytes at `offset` with a little-endian UInt32.
    mutating func setUInt32(_ value: UInt32, at offset: Int) {
        precondition(offset >= 0 && offset + 4 <= count, "setUInt32 outside the bytes written")
        (start.unsafelyUnwrapped + offset).storeBytes(of: value.littleEndian, as: UInt32.self)
    }

    /// Forgets the bytes from `length` on, keeping the block.
    mutating func truncate(to length: Int) {
        precondition(length >= 0 && length <= count, "truncate beyond the bytes written")
        count = length
    }

    /// Forgets every byte, keeping the block.
    mutating func removeAll() {
        count = 0
    }

    /// Moves the bytes out into a buffer of their own, leaving this one empty.
    mutating func takeAll() -> ByteBuffer {
        var taken = ByteBuffer()
        swap(&taken.start, &start)
        swap(&taken.count, &count)
        swap(&taken.capacity, &capacity)
        return taken
    }

    /// Hands the block over: its start (NUL-terminated after `count` bytes, never nil)
    /// and length. The caller releases it with `free`.
    consuming func takeBlock() -> (start: UnsafeMutableRawPointer, count: Int) {
        append(0)
        let block = (start.unsafelyUnwrapped, count - 1)
        start = nil
        return block
    }

    private mutating func grow(toHold needed: Int) {
        let wanted = Swift.max(needed, capacity < 1 << 20 ? Swift.max(64, capacity * 2) : capacity + capacity / 2)
        (start, capacity) = BlockPool.shared.resize(start, used: count, capacity: capacity, to: wanted)
    }
}

/// LEB128 unsigned integers, as the record format stores lengths and counts.
enum Varint {
    /// The bytes `value` takes.
    @inline(__always)
    static func length(_ value: UInt64) -> Int {
        // 1 byte per 7 bits, at least one.
        (63 &- (value | 1).leadingZeroBitCount) / 7 &+ 1
    }

    /// Writes `value` at `out`; returns the bytes written (at most 10).
    @inline(__always)
    static func write(_ value: UInt64, to out: UnsafeMutableRawPointer) -> Int {
        var rest = value
        var written = 0
        while rest >= 0x80 {
            out.storeBytes(of: UInt8(truncatingIfNeeded: rest) | 0x80, toByteOffset: written, as: UInt8.self)
            rest >>= 7
            written &+= 1
        }
        out.storeBytes(of: UInt8(truncatingIfNeeded: rest), toByteOffset: written, as: UInt8.self)
        return written &+ 1
    }
}

extension UnsafeMutableRawPointer {
    /// Copies `count` bytes from `source` here, not one byte more: short runs (names,
    /// numbers) in two overlapping words instead of a call to `memcpy`.
    @inline(__always)
    func copyExactly(from source: UnsafeRawPointer, count: Int) {
        if count > 16 {
            memcpy(self, source, count)
        } else if count >= 8 {
            storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
            (self + count - 8).storeBytes(of: source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), as: UInt64.self)
        } else if count >= 4 {
            storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
            (self + count - 4).storeBytes(of: source.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self), as: UInt32.self)
        } else {
            for offset in 0..<count { storeBytes(of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self) }
        }
    }
}
