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
    init?(_ bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        guard let flags = reader.readByte(), Self.isValid(flags) else { return nil }
        writtenAt = 0
        if flags & Self.hasWrittenAt != 0 {
            guard let time = reader.readVarint() else { return nil }
            writtenAt = time
        }
        if flags & Self.hasExpiry != 0 {
            guard let time = reader.readVarint() else { return nil }
            expiresAt = time
        }
        isInvalidated = flags & Self.invalidated != 0
        guard reader.isAtEnd else { return nil }
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
