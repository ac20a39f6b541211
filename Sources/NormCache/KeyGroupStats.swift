/// What one key group of a cache holds, as `NormalizedCache.keyGroupStats()` reports it.
public struct KeyGroupStats: Equatable, Sendable {
    /// The group: a key's text up to and including its first `:` (`Pet:`), or, when a
    /// `.` comes first or there is no `:`, up to that `.` (`QUERY_ROOT`), else the key.
    public var group: String
    /// The number of records.
    public var records: Int
    /// The bytes of their keys and stored records (encoded, without LMDB's overhead).
    public var bytes: Int
    /// The written-at time (seconds since 1970) of the group's oldest field.
    public var oldestWrite: UInt64
    /// The written-at time (seconds since 1970) of the group's newest field.
    public var newestWrite: UInt64

    /// A group's figures.
    public init(group: String, records: Int, bytes: Int, oldestWrite: UInt64, newestWrite: UInt64) {
        self.group = group
        self.records = records
        self.bytes = bytes
        self.oldestWrite = oldestWrite
        self.newestWrite = newestWrite
    }

    /// The group of the record key `key` (see `group`).
    public static func group(of key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        for (index, byte) in key.enumerated() {
            if byte == UInt8(ascii: ":") { return UnsafeRawBufferPointer(rebasing: key[...index]) }
            if byte == UInt8(ascii: ".") { return UnsafeRawBufferPointer(rebasing: key[..<index]) }
        }
        return key
    }
}
