/// What a record entry stores about its field before the value: a flags byte, then
/// the times the flags announce, each a varint of seconds since 1970:
///
///     UInt8   flags: 1 written-at follows, 2 an expiry follows, 4 invalidated
///     varint  written-at (flag 1)
///     varint  expires-at (flag 2): the field is stale from this time on
///
/// An expiry comes from the write (a `max_age`, the server's `Cache-Control`) or from an
/// invalidation, which also sets flag 4 so that a read can say why the field is stale.
/// Max-age rules are not stored: reads apply them to the written-at time.
struct FieldMetadata: Equatable {
    /// Flag: the entry carries its written-at time.
    static let hasWrittenAt: UInt8 = 1
    /// Flag: the entry carries an expiry after its written-at time.
    static let hasExpiry: UInt8 = 2
    /// Flag: the field was invalidated; its expiry is the invalidation's time.
    static let invalidated: UInt8 = 4
    /// The most bytes the metadata takes: the flags and two ten-byte varints.
    static let maximumLength = 21

    /// When the field was last written (0: unknown).
    var writtenAt: UInt64
    /// When the field becomes stale, if the write or an invalidation said so.
    var expiresAt: UInt64?
    /// Whether an invalidation set the expiry.
    var isInvalidated = false

    /// The flags byte of this metadata.
    var flags: UInt8 {
        var flags = Self.hasWrittenAt
        if expiresAt != nil { flags |= Self.hasExpiry }
        if isInvalidated { flags |= Self.invalidated }
        return flags
    }

    /// Metadata written at `writtenAt`, stale from `expiresAt` if given.
    init(writtenAt: UInt64, expiresAt: UInt64? = nil, isInvalidated: Bool = false) {
        self.writtenAt = writtenAt
        self.expiresAt = expiresAt
        self.isInvalidated = isInvalidated && expiresAt != nil
    }

    /// Decodes the metadata bytes of an entry (exactly them), or nil when they are damaged.
    /// A read decodes one per field it judges: the times are read byte by byte in one
    /// loop, not through `ByteReader` (whose word-wide path needs eight bytes left).
    @inline(__always)
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let flags = base.load(as: UInt8.self)
        guard Self.isValid(flags) else { return nil }
        var position = 1
        writtenAt = 0
        if flags & Self.hasWrittenAt != 0 {
            guard let time = Self.varint(bytes, at: &position) else { return nil }
            writtenAt = time
        }
        if flags & Self.hasExpiry != 0 {
            guard let time = Self.varint(bytes, at: &position) else { return nil }
            expiresAt = time
        }
        isInvalidated = flags & Self.invalidated != 0
        guard position == bytes.count else { return nil }
    }

    /// The written-at time of metadata that is a written-at time alone in five varint
    /// bytes (every time from 1978 to 3058: what this library writes), decoded without a
    /// loop; nil for any other metadata (then decode it with `init?(_:)`). The fast path
    /// of a read's freshness check.
    @inline(__always)
    static func plainTime(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        plainTimeBits(bytes).map { plainTime(bits: $0) }
    }

    /// The time of a plain time's bits (`plainTimeBits`).
    @inline(__always)
    static func plainTime(bits: UInt64) -> UInt64 {
        (bits & 0x7F) | (bits >> 8 & 0x7F) << 7 | (bits >> 16 & 0x7F) << 14 | (bits >> 24 & 0x7F) << 21 | (bits >> 32 & 0x7F) << 28
    }

    /// The five varint bytes of metadata that is a plain written-at time (as
    /// `plainTime(_:)` accepts) as one little-endian integer, not decoded; nil for any
    /// other metadata. Such integers are ordered as the times they hold (see
    /// `plainTimeBits(of:)`), so a time is compared with a bound without decoding it.
    @inline(__always)
    static func plainTimeBits(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard bytes.count == 6, let base = bytes.baseAddress, base.load(as: UInt8.self) == hasWrittenAt else { return nil }
        let bits = UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 1, as: UInt32.self)))
            | UInt64(base.load(fromByteOffset: 5, as: UInt8.self)) << 32
        // Groups 0-3 continue (bit 7 set), group 4 ends (bit 7 clear).
        guard bits & plainTimeContinuations == 0x8080_8080 else { return nil }
        return bits
    }

    /// `time` (below `plainTimeLimit`) laid out as `plainTimeBits(_:)` reads a stored
    /// plain time: its five 7-bit groups, low first, one a byte, bit 7 set in all but the
    /// last. The layout keeps order: both integers are the groups' sum at powers of 256
    /// plus the same continuation bits, and groups under 128 compare alike at powers of
    /// 256 and of 128. So for a stored plain time `t`, `plainTimeBits(t) > plainTimeBits(of: b)`
    /// exactly when `t > b`.
    static func plainTimeBits(of time: UInt64) -> UInt64 {
        precondition(time < plainTimeLimit, "time \(time) does not fit five varint bytes")
        var bits: UInt64 = 0
        for group in 0..<5 { bits |= (time >> (7 * UInt64(group)) & 0x7F) << (8 * UInt64(group)) }
        return bits | 0x8080_8080
    }

    /// The times five varint bytes hold: below 2^35 (the year 3058).
    static let plainTimeLimit: UInt64 = 1 << 35

    /// The continuation bits of the five bytes of a plain time.
    private static let plainTimeContinuations: UInt64 = 0x80_8080_8080

    /// The LEB128 varint at `position` (at most ten bytes, within `bytes`); moves past it.
    @inline(__always)
    private static func varint(_ bytes: UnsafeRawBufferPointer, at position: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count, shift < 70 {
            let byte = bytes.load(fromByteOffset: position, as: UInt8.self)
            position &+= 1
            // The tenth byte holds bit 63 alone: anything more would overflow.
            guard shift < 63 || byte <= 1 else { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift &+= 7
        }
        return nil
    }

    /// Whether `flags` is a flags byte this format knows: no unknown bit, an expiry only
    /// after a written-at time, invalidated only with its expiry.
    @inline(__always)
    static func isValid(_ flags: UInt8) -> Bool {
        flags & ~7 == 0 && (flags & hasExpiry == 0 || flags & hasWrittenAt != 0)
            && (flags & invalidated == 0 || flags & hasExpiry != 0)
    }

    /// The bytes the encoded metadata takes.
    var encodedLength: Int {
        1 &+ Varint.length(writtenAt) &+ (expiresAt.map { Varint.length($0) } ?? 0)
    }

    /// Writes the metadata at `out`; returns the bytes written (`encodedLength`).
    @discardableResult
    func write(to out: UnsafeMutableRawPointer) -> Int {
        out.storeBytes(of: flags, as: UInt8.self)
        var length = 1 &+ Varint.write(writtenAt, to: out + 1)
        if let expiresAt { length &+= Varint.write(expiresAt, to: out + length) }
        return length
    }
}
