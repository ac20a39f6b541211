/// The rules a handle was given — the SDL of its schema and its configuration JSONs in
/// the order given, as `CacheRules` keeps them — in the form a cache file saves them
/// for every handle that opens it (the meta entry `rules`), and their fingerprint.
///
/// The entry holds the fingerprint (8 bytes, little-endian) and then the encoding: a
/// version byte (1), a byte that is 1 when a schema follows (then its SDL,
/// length-prefixed), the number of configurations (a varint) and each configuration,
/// length-prefixed. The fingerprint is `StorageKey.hash64` of the encoding with salt 0:
/// it tells rules apart, and a damaged entry from a whole one; it guards against no one
/// (anyone who can write the file can write any rules), so 64 bits of a fast hash do,
/// where a cryptographic hash would add code and no protection.
struct SavedRules: Equatable {
    /// The name of the meta entry.
    static let metaName: StaticString = "rules"
    /// The version of the encoding this library writes and reads.
    static let encodingVersion: UInt8 = 1

    /// The SDL of the schema, or nil without one.
    var sdl: [UInt8]?
    /// The configuration JSONs, in the order given.
    var configurations: [[UInt8]]

    /// Whether there are no rules at all.
    var isEmpty: Bool { sdl == nil && configurations.isEmpty }

    /// Rules of a schema's SDL (nil: none) and configurations.
    init(sdl: [UInt8]?, configurations: [[UInt8]]) {
        self.sdl = sdl
        self.configurations = configurations
    }

    /// The encoding of the rules, which the fingerprint hashes.
    var encoded: [UInt8] {
        var out: [UInt8] = [Self.encodingVersion, sdl == nil ? 0 : 1]
        if let sdl { out.appendLengthPrefixed(sdl) }
        out.appendVarint(UInt64(configurations.count))
        for configuration in configurations { out.appendLengthPrefixed(configuration) }
        return out
    }

    /// The fingerprint of the rules.
    var fingerprint: UInt64 { Self.fingerprint(of: encoded) }

    /// The value of the meta entry: the fingerprint, then the encoding.
    var stored: [UInt8] {
        let encoding = encoded
        let fingerprint = Self.fingerprint(of: encoding)
        var out: [UInt8] = []
        out.reserveCapacity(8 + encoding.count)
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: fingerprint >> UInt64(shift))) }
        out.append(contentsOf: encoding)
        return out
    }

    /// Decodes the meta entry of the file at `path`; a damaged entry, or one of a newer
    /// encoding, is `.notACache`.
    init(stored: UnsafeRawBufferPointer, path: String) throws(NormCacheError) {
        let fingerprint = try Self.fingerprint(stored: stored, path: path)
        let encoding = UnsafeRawBufferPointer(rebasing: stored[8...])
        var reader = ByteReader(encoding)
        guard let version = reader.readByte() else { throw Self.damaged(path, "are cut short") }
        guard version == Self.encodingVersion else {
            throw NormCacheError(.notACache, "'\(path)' has saved rules of encoding version \(version), which this library does not read (it reads \(Self.encodingVersion))\(Self.remedy)")
        }
        guard Self.fingerprint(of: encoding) == fingerprint else { throw Self.damaged(path, "do not match their fingerprint") }
        guard let hasSchema = reader.readByte(), hasSchema <= 1 else { throw Self.damaged(path, "have no valid schema mark") }
        var sdl: [UInt8]?
        if hasSchema == 1 {
            guard let length = reader.readLength(), let bytes = reader.readBytes(length) else { throw Self.damaged(path, "are cut short") }
            sdl = Array(bytes)
        }
        guard let count = reader.readLength() else { throw Self.damaged(path, "are cut short") }
        var configurations: [[UInt8]] = []
        for _ in 0..<count {
            guard let length = reader.readLength(), let bytes = reader.readBytes(length) else { throw Self.damaged(path, "are cut short") }
            configurations.append(Array(bytes))
        }
        guard reader.isAtEnd else { throw Self.damaged(path, "have bytes past their end") }
        self.init(sdl: sdl, configurations: configurations)
    }

    /// The fingerprint at the front of the meta entry of the file at `path`.
    static func fingerprint(stored: UnsafeRawBufferPointer, path: String) throws(NormCacheError) -> UInt64 {
        guard stored.count > 8 else { throw damaged(path, "are shorter than a fingerprint") }
        return UInt64(littleEndian: stored.loadUnaligned(as: UInt64.self))
    }

    /// A fingerprint as users see it: 16 lowercase hexadecimal digits, or "none" for
    /// no rules.
    static func text(_ fingerprint: UInt64?) -> String {
        guard let fingerprint else { return "none" }
        let digits = String(fingerprint, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// What a user does about saved rules that cannot be used.
    static let remedy = "; open it with the option \"rules\": \"own\" to clear or replace them"

    private static func fingerprint(of encoding: UnsafeRawBufferPointer) -> UInt64 {
        StorageKey.hash64(encoding, salt: 0)
    }

    private static func fingerprint(of encoding: [UInt8]) -> UInt64 {
        encoding.withUnsafeBytes { fingerprint(of: $0) }
    }

    private static func damaged(_ path: String, _ reason: String) -> NormCacheError {
        NormCacheError(.notACache, "'\(path)' is damaged: its saved rules \(reason)\(remedy)")
    }
}
