/// Key/value pairs in one contiguous buffer, in a fixed order: the records normcache
/// stored, as the raw LMDB baseline replays them.
struct RecordSet {
    /// Where one pair lies in `storage`.
    struct Pair {
        var keyOffset: Int
        var keyLength: Int
        var valueOffset: Int
        var valueLength: Int
    }

    /// The bytes of every key and value.
    private(set) var storage: [UInt8] = []
    /// The pairs in order.
    private(set) var pairs: [Pair] = []

    /// Appends a pair.
    mutating func append(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let keyOffset = storage.count
        storage.append(contentsOf: key)
        let valueOffset = storage.count
        storage.append(contentsOf: value)
        pairs.append(Pair(keyOffset: keyOffset, keyLength: key.count, valueOffset: valueOffset, valueLength: value.count))
    }

    /// The number of pairs.
    var count: Int { pairs.count }

    /// The bytes of all keys and values.
    var byteCount: Int { storage.count }

    /// The key of pair `index`.
    func key(_ index: Int) -> [UInt8] {
        let pair = pairs[index]
        return Array(storage[pair.keyOffset..<(pair.keyOffset + pair.keyLength)])
    }

    /// Calls `body` with the storage, for reading pairs in place.
    func withStorage<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes(body)
    }
}
