/// How record keys of any length map onto LMDB keys, which stop at 511 bytes.
///
/// A record key of at most `directLimit` (503) bytes is its own LMDB key. A longer key
/// is stored under its first 503 bytes followed by an 8-byte hash of the whole key —
/// exactly 511 bytes, a length no direct key has — and the rest of the key is kept at
/// the front of the value, so every read can check that it found the very key it
/// asked for. Because the first 503 bytes are kept, LMDB's byte order and prefix
/// ranges stay exact; only long keys that share their first 503 bytes sort by hash
/// among themselves, and prefix searches re-sort such runs.
enum StorageKey {
    /// The longest record key stored as it is.
    static let directLimit = 503
    /// The length of the LMDB key of every long record key.
    static let longKeyLength = directLimit + 8

    /// Whether an LMDB key stands for a long record key.
    static func isLong(_ storedKey: UnsafeRawBufferPointer) -> Bool {
        storedKey.count == longKeyLength
    }

    /// The LMDB key of a long record key (longer than `directLimit`), hashed with the
    /// cache's salt.
    static func longKey(for key: UnsafeRawBufferPointer, salt: UInt64) -> [UInt8] {
        var stored = Array(key[0..<directLimit])
        let hash = hash64(key, salt: salt)
        for shift in stride(from: 56, through: 0, by: -8) { stored.append(UInt8(truncatingIfNeeded: hash >> UInt64(shift))) }
        return stored
    }

    /// The value stored for a long key: the key's tail beyond `directLimit`, then the record.
    static func longValue(for key: UnsafeRawBufferPointer, record: UnsafeRawBufferPointer) -> [UInt8] {
        var value: [UInt8] = []
        value.reserveCapacity(key.count - directLimit + 10 + record.count)
        value.appendLengthPrefixed(key[directLimit...])
        value.append(contentsOf: record)
        return value
    }

    /// Splits the stored value of a long key into the key's tail and the record; nil
    /// when the value is damaged.
    static func splitLongValue(_ value: UnsafeRawBufferPointer) -> (tail: UnsafeRawBufferPointer, record: UnsafeRawBufferPointer)? {
        var reader = ByteReader(value)
        guard let length = reader.readLength(), let tail = reader.readBytes(length) else { return nil }
        return (tail, UnsafeRawBufferPointer(rebasing: value[reader.offset...]))
    }

    /// The full record key of an LMDB entry; nil when a long entry's value is damaged.
    static func recordKey(stored key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> [UInt8]? {
        guard isLong(key) else { return Array(key) }
        guard let (tail, _) = splitLongValue(value) else { return nil }
        return Array(key[0..<directLimit]) + Array(tail)
    }

    /// FNV-1a over the bytes, seeded with the cache's random salt and finished with a
    /// 64-bit avalanche mix. The salt, unknown outside the file, keeps data from a
    /// server from choosing colliding keys; a collision is detected and refused, never
    /// merged.
    static func hash64(_ bytes: UnsafeRawBufferPointer, salt: UInt64) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ salt
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash &*= 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        hash ^= salt &* 0x9e37_79b9_7f4a_7c15
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        return hash
    }
}
