/// Equality, byte order and hashing of short byte strings (record keys, field keys)
/// without a call into the C library: words of eight bytes at a time, the last one
/// overlapping, so that nothing is read outside either string.
enum KeyBytes {
    /// Whether the two strings hold the same bytes.
    @inline(__always)
    static func equal(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        let count = left.count
        guard count == right.count else { return false }
        guard count > 0 else { return true }
        let a = left.baseAddress.assumedPresent, b = right.baseAddress.assumedPresent
        if count >= 8 {
            var offset = 0
            while offset &+ 8 <= count {
                if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                    return false
                }
                offset &+= 8
            }
            return offset == count
                || a.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
        }
        if count >= 4 {
            return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
                && a.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self) == b.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
        }
        if count >= 2 {
            return a.loadUnaligned(as: UInt16.self) == b.loadUnaligned(as: UInt16.self)
                && a.loadUnaligned(fromByteOffset: count &- 2, as: UInt16.self) == b.loadUnaligned(fromByteOffset: count &- 2, as: UInt16.self)
        }
        return a.load(as: UInt8.self) == b.load(as: UInt8.self)
    }

    /// Whether `bytes` starts with `prefix`.
    @inline(__always)
    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ prefix: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= prefix.count && equal(UnsafeRawBufferPointer(start: bytes.baseAddress, count: prefix.count), prefix)
    }

    /// The byte order of two strings (a proper prefix first): negative, zero or positive.
    @inline(__always)
    static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let common = Swift.min(left.count, right.count)
        if common > 0 {
            let a = left.baseAddress.assumedPresent, b = right.baseAddress.assumedPresent
            var offset = 0
            while offset &+ 8 <= common {
                let x = UInt64(bigEndian: a.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                let y = UInt64(bigEndian: b.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                if x != y { return x < y ? -1 : 1 }
                offset &+= 8
            }
            // Field names are mostly shorter than eight bytes: four at a time first.
            if offset &+ 4 <= common {
                let x = UInt32(bigEndian: a.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let y = UInt32(bigEndian: b.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                if x != y { return x < y ? -1 : 1 }
                offset &+= 4
            }
            while offset < common {
                let x = a.load(fromByteOffset: offset, as: UInt8.self), y = b.load(fromByteOffset: offset, as: UInt8.self)
                if x != y { return x < y ? -1 : 1 }
                offset &+= 1
            }
        }
        return left.count &- right.count
    }

    /// The bytes `key[start ..< start + 8]` as a big-endian word, zeros past the key's
    /// end: of two keys whose bytes before `start` agree, the one with the lower word at
    /// `start` comes first in byte order (equal words leave the order to what follows).
    @inline(__always)
    static func word(of key: UnsafeRawBufferPointer, at start: Int) -> UInt64 {
        let count = key.count
        if count >= start &+ 8 { return UInt64(bigEndian: key.loadUnaligned(fromByteOffset: start, as: UInt64.self)) }
        guard count > start else { return 0 }
        if count >= 8 {
            // The key's last eight bytes, shifted so that byte `start` leads and zeros follow.
            let last = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))
            return last << (UInt64(truncatingIfNeeded: start &+ 8 &- count) &* 8)
        }
        // Fewer than eight bytes (a field name, mostly): gathered by overlapping loads.
        let bytes = key.baseAddress.assumedPresent + start, remaining = count &- start
        if remaining >= 4 {
            let first = UInt64(UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))
            let last = UInt64(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: remaining &- 4, as: UInt32.self)))
            return first << 32 | last << (UInt64(truncatingIfNeeded: 8 &- remaining) &* 8)
        }
        let middle = remaining >> 1, last = remaining &- 1
        return UInt64(bytes.load(as: UInt8.self)) << 56
            | UInt64(bytes.load(fromByteOffset: middle, as: UInt8.self)) << (56 &- UInt64(truncatingIfNeeded: middle) &* 8)
            | UInt64(bytes.load(fromByteOffset: last, as: UInt8.self)) << (56 &- UInt64(truncatingIfNeeded: last) &* 8)
    }

    /// A hash of the bytes, eight at a time, from a `seed` drawn per process
    /// (`KeyBytes.seed`): keys that a server sends cannot be chosen to collide in the
    /// tables of a call.
    @inline(__always)
    static func hash(_ key: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash: UInt64 = seed ^ UInt64(truncatingIfNeeded: key.count)
        guard let base = key.baseAddress else { return hash }
        var offset = 0
        while offset &+ 8 <= key.count {
            hash = (hash ^ base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
            offset &+= 8
        }
        var tail: UInt64 = 0
        while offset < key.count {
            tail = tail << 8 | UInt64(base.load(fromByteOffset: offset, as: UInt8.self))
            offset &+= 1
        }
        hash = (hash ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return hash ^ (hash >> 29)
    }

    /// The random seed of `hash`, drawn once per process; tables keep a copy.
    static let seed = UInt64.random(in: .min ... .max)
}
