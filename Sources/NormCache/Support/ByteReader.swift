/// Bounds-checked reading of the binary record format from bytes that may be
/// damaged: every read either succeeds within the buffer or returns nil. Loads are
/// unaligned-safe, since LMDB values have no alignment.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    /// The offset of the next read.
    var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset == bytes.count }

    /// Reads one byte.
    @inline(__always)
    mutating func readByte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads a LEB128 unsigned integer of at most 10 bytes.
    @inline(__always)
    mutating func readVarint() -> UInt64? {
        // Most lengths and counts take one byte.
        if offset < bytes.count, case let byte = bytes[offset], byte < 0x80 {
            offset &+= 1
            return UInt64(byte)
        }
        return readLongVarint()
    }

    private mutating func readLongVarint() -> UInt64? {
        // Up to eight bytes from one word: its first byte below 0x80 ends the varint.
        if bytes.count - offset >= 8 {
            var word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let stops = ~word & 0x8080_8080_8080_8080
            if stops != 0 {
                let length = stops.trailingZeroBitCount &>> 3 &+ 1
                var value: UInt64 = 0
                for group in 0..<length {
                    value |= (word & 0x7F) << UInt64(7 &* group)
                    word >>= 8
                }
                offset &+= length
                return value
            }
        }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while shift < 64 {
            guard let byte = readByte() else { return nil }
            // The tenth byte holds bit 63 alone: anything more would overflow.
            guard shift < 63 || byte <= 1 else { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    /// Skips a varint of at most 10 bytes; false when it runs past the end or is longer.
    @inline(__always)
    mutating func skipVarint() -> Bool {
        let limit = Swift.min(bytes.count, offset &+ 10)
        var position = offset
        while position < limit {
            if bytes[position] < 0x80 {
                offset = position &+ 1
                return true
            }
            position &+= 1
        }
        return false
    }

    /// Reads a varint that must be a length or count no larger than the bytes left.
    @inline(__always)
    mutating func readLength() -> Int? {
        guard let value = readVarint(), value <= UInt64(bytes.count - offset) else { return nil }
        return Int(value)
    }

    /// Reads a little-endian UInt32.
    @inline(__always)
    mutating func readUInt32() -> UInt32? {
        guard bytes.count - offset >= 4 else { return nil }
        defer { offset += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// Reads `count` bytes in place.
    @inline(__always)
    mutating func readBytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }
}

/// Writing of the binary record format.
extension Array where Element == UInt8 {
    /// Appends a LEB128 unsigned integer.
    mutating func appendVarint(_ value: UInt64) {
        var word: (UInt64, UInt16) = (0, 0)
        Swift.withUnsafeMutableBytes(of: &word) { bytes in
            append(contentsOf: bytes.prefix(Varint.write(value, to: bytes.baseAddress.assumedPresent)))
        }
    }

    /// Appends a length-prefixed byte string.
    mutating func appendLengthPrefixed<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        appendVarint(UInt64(bytes.count))
        append(contentsOf: bytes)
    }

    /// Appends a little-endian UInt32.
    mutating func appendUInt32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}
