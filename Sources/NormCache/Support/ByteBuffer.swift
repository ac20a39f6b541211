import Glibc

/// A growable run of bytes in one malloc'd block: what the hot paths write into
/// (read output, encoded records, the write batch). Appending costs no uniqueness check
/// and no reference counting, unlike `[UInt8]`, and the block can be handed to a C
/// caller as it is (`takeBlock`), to be released with `free`.
///
/// Large blocks come from and go back to the `BlockPool`. When memory cannot be had the
/// buffer fails as sqlite3_str does: it keeps the bytes it holds, takes no more (appends
/// are dropped, `reserve` answers nil), and remembers the bytes it asked for; the owner
/// turns that into `.outOfMemory` with `check(while:)` before it uses the bytes. Reading
/// a failed buffer's bytes (`bytes`, `array`, `takeBlock()`) stops the process instead,
/// so that no caller can take cut-short bytes for whole ones.
struct ByteBuffer: ~Copyable {
    /// The start of the block (nil before the first byte is reserved).
    private(set) var start: UnsafeMutableRawPointer?
    /// The bytes written.
    private(set) var count = 0
    /// The bytes the block holds.
    private(set) var capacity = 0
    /// The size of the block a growth could not get; 0 while none failed.
    private(set) var failedAllocation = 0

    /// An empty buffer with room for `capacity` bytes (a failed buffer when that much
    /// memory cannot be had).
    init(capacity: Int = 0) {
        if capacity > 0 { _ = grow(toHold: capacity) }
    }

    deinit {
        if let start { BlockPool.shared.release(start, capacity: capacity) }
    }

    /// Throws `.outOfMemory` ("could not allocate N bytes while `purpose`") when a
    /// growth failed.
    func check(while purpose: @autoclosure () -> String) throws(NormCacheError) {
        guard failedAllocation == 0 else { throw .outOfMemory(allocating: failedAllocation, while: purpose()) }
    }

    /// The bytes written, valid until the next change; stops the process when the
    /// buffer failed (see `check(while:)`).
    var bytes: UnsafeRawBufferPointer {
        stopIfFailed()
        return UnsafeRawBufferPointer(start: start, count: count)
    }

    /// The bytes written, as an array; stops the process when the buffer failed.
    var array: [UInt8] { Array(bytes) }

    /// Makes room for `extra` more bytes and returns where they go, for the caller to
    /// write them and then call `advance(by:)`; nil when the buffer failed (it cannot
    /// grow to hold them, or failed before).
    @inline(__always)
    mutating func reserve(_ extra: Int) -> UnsafeMutableRawPointer? {
        if capacity &- count < extra, !grow(toHold: count + extra) { return nil }
        return start.assumedPresent + count
    }

    /// Counts `written` bytes written after a `reserve`.
    @inline(__always)
    mutating func advance(by written: Int) {
        internalCheck(written >= 0 && written <= capacity &- count, "advance by \(written) past the \(capacity &- count) bytes reserved")
        count &+= written
    }

    /// Appends one byte.
    @inline(__always)
    mutating func append(_ byte: UInt8) {
        guard let out = reserve(1) else { return }
        out.storeBytes(of: byte, as: UInt8.self)
        count &+= 1
    }

    /// Appends `length` bytes from `source`.
    @inline(__always)
    mutating func append(_ source: UnsafeRawPointer?, count length: Int) {
        guard length > 0, let source, let out = reserve(length) else { return }
        out.copyExactly(from: source, count: length)
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
        guard let out = reserve(10) else { return }
        count &+= Varint.write(value, to: out)
    }

    /// Appends a little-endian UInt32.
    @inline(__always)
    mutating func appendUInt32(_ value: UInt32) {
        guard let out = reserve(4) else { return }
        out.storeBytes(of: value.littleEndian, as: UInt32.self)
        count &+= 4
    }

    /// Overwrites four bytes at `offset` with a little-endian UInt32 (nothing in a
    /// failed buffer, whose bytes are not used).
    mutating func setUInt32(_ value: UInt32, at offset: Int) {
        guard failedAllocation == 0 else { return }
        precondition(offset >= 0 && offset + 4 <= count, "setUInt32 outside the bytes written")
        (start.assumedPresent + offset).storeBytes(of: value.littleEndian, as: UInt32.self)
    }

    /// Forgets the bytes from `length` on, keeping the block.
    mutating func truncate(to length: Int) {
        precondition(length >= 0 && length <= count, "truncate beyond the bytes written")
        count = length
    }

    /// Forgets every byte, keeping the block (and a failure).
    mutating func removeAll() {
        count = 0
    }

    /// Moves the bytes (and a failure) out into a buffer of their own, leaving this one
    /// empty.
    mutating func takeAll() -> ByteBuffer {
        var taken = ByteBuffer()
        swap(&taken.start, &start)
        swap(&taken.count, &count)
        swap(&taken.capacity, &capacity)
        swap(&taken.failedAllocation, &failedAllocation)
        return taken
    }

    /// Hands the block over: its start (NUL-terminated after `count` bytes, never nil)
    /// and length; the caller releases it with `free`. Throws `.outOfMemory` naming
    /// `purpose` when the buffer failed, or the terminating NUL finds no room.
    consuming func takeBlock(while purpose: @autoclosure () -> String) throws(NormCacheError) -> (start: UnsafeMutableRawPointer, count: Int) {
        append(0)
        try check(while: purpose())
        let block = (start.assumedPresent, count - 1)
        start = nil
        return block
    }

    /// `takeBlock(while:)` for a caller that cannot fail: stops the process when the
    /// buffer failed.
    consuming func takeBlock() -> (start: UnsafeMutableRawPointer, count: Int) {
        do { return try takeBlock(while: "handing over a result") } catch { fatalError(error.message) }
    }

    /// Grows the block to hold at least `needed` bytes; false (the buffer failed, its
    /// capacity cut to its count so that it takes no more) when memory cannot be had.
    private mutating func grow(toHold needed: Int) -> Bool {
        guard failedAllocation == 0 else { return false }
        let wanted = Swift.max(needed, capacity < 1 << 20 ? Swift.max(64, capacity * 2) : capacity + capacity / 2)
        guard let (grown, grownCapacity) = BlockPool.shared.reallocate(start, used: count, capacity: capacity, to: wanted) else {
            failedAllocation = wanted
            capacity = count
            return false
        }
        (start, capacity) = (grown, grownCapacity)
        return true
    }

    /// Stops the process when the buffer failed: its bytes are cut short.
    private func stopIfFailed() {
        if failedAllocation != 0 { fatalError(NormCacheError.outOfMemory(allocating: failedAllocation, while: "writing bytes").message) }
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
