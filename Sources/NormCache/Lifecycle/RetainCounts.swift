/// Retain counts: a record key the user retains is a root of garbage collection until
/// it is released as often as it was retained. Counts live in the meta database as
/// entries `retain/<key>` holding a little-endian `UInt32`, so every handle and every
/// process that opens the file shares them, and they survive a reopen. A count that
/// drops to zero deletes its entry.
extension StoreTransaction {
    /// The prefix of the meta entries that hold retain counts.
    static let retainPrefix: [UInt8] = Array("retain/".utf8)
    /// The longest key that can be retained (LMDB keys stop at 511 bytes).
    static let longestRetainedKey = 511 - retainPrefix.count

    /// The retain count of `key` (0: not retained).
    func retainCount(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UInt32 {
        try Self.retainEntry(key).withBytes { (entry) throws(NormCacheError) -> UInt32 in
            guard let value = try lmdb({ () throws(LMDBError) in try txn.get(meta, entry) }) else { return 0 }
            guard value.count == 4 else { throw NormCacheError(.notACache, "the retain count of '\(KeyBytes.preview(key))' in '\(path)' is damaged") }
            return UInt32(littleEndian: value.loadUnaligned(as: UInt32.self))
        }
    }

    /// Stores `count` as the retain count of `key` (0 deletes its entry).
    func setRetainCount(_ key: UnsafeRawBufferPointer, _ count: UInt32) throws(NormCacheError) {
        try Self.retainEntry(key).withBytes { (entry) throws(NormCacheError) in
            if count == 0 {
                _ = try lmdb { () throws(LMDBError) in try txn.delete(meta, entry) }
                return
            }
            let value: [UInt8] = (0..<4).map { UInt8(truncatingIfNeeded: count >> ($0 * 8)) }
            try value.withBytes { (value) throws(NormCacheError) in
                try lmdb { () throws(LMDBError) in try txn.put(meta, entry, value) }
            }
        }
    }

    /// Calls `visit` with every retained key, in byte order.
    func forEachRetainedKey(_ visit: (UnsafeRawBufferPointer) throws(NormCacheError) -> Void) throws(NormCacheError) {
        let cursor = try lmdb { () throws(LMDBError) in try txn.cursor(meta) }
        defer { cursor.close() }
        var entry = try Self.retainPrefix.withBytes { (prefix) throws(NormCacheError) in
            try lmdb { () throws(LMDBError) in try cursor.seek(atOrAfter: prefix) }
        }
        while let (name, _) = entry, name.starts(with: Self.retainPrefix) {
            try visit(UnsafeRawBufferPointer(rebasing: name[Self.retainPrefix.count...]))
            entry = try lmdb { () throws(LMDBError) in try cursor.next() }
        }
    }

    /// The meta entry name of the retain count of `key`.
    private static func retainEntry(_ key: UnsafeRawBufferPointer) -> [UInt8] {
        retainPrefix + Array(key)
    }
}

extension NormalizedCache {
    /// Retains the record key `key`: until it is released as often, garbage collection
    /// (`collectGarbage`) keeps the record and everything it refers to, present or not
    /// yet written. The count is kept in the file, shared by every handle and process.
    /// Returns the new count. `.invalidArgument` for an empty key, one that is not
    /// UTF-8 or longer than 504 bytes, or a count at `UInt32.max`.
    @discardableResult
    public func retain(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UInt32 {
        try Self.checkRetainKey(key)
        return try store.write { (txn) throws(NormCacheError) -> UInt32 in
            let count = try txn.retainCount(key)
            guard count < UInt32.max else {
                throw NormCacheError(.invalidArgument, "'\(KeyBytes.preview(key))' is retained \(count) times, the most a count holds")
            }
            try txn.setRetainCount(key, count + 1)
            return count + 1
        }
    }

    /// Releases the record key `key` once; returns the count left (0: no longer a root).
    /// `.invalidArgument` ("'KEY' is not retained") when its count is already 0: a
    /// release never goes below zero.
    @discardableResult
    public func release(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UInt32 {
        try Self.checkRetainKey(key)
        return try store.write { (txn) throws(NormCacheError) -> UInt32 in
            let count = try txn.retainCount(key)
            guard count > 0 else { throw NormCacheError(.invalidArgument, "'\(KeyBytes.preview(key))' is not retained") }
            try txn.setRetainCount(key, count - 1)
            return count - 1
        }
    }

    /// How many times `key` is retained (0: not retained).
    public func retainCount(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UInt32 {
        try Self.checkRetainKey(key)
        return try store.read { (txn) throws(NormCacheError) in try txn.retainCount(key) }
    }

    /// `retain(_:)` for a `String` key.
    @discardableResult
    public func retain(_ key: String) throws(NormCacheError) -> UInt32 {
        try key.withUTF8Bytes { (bytes) throws(NormCacheError) in try retain(bytes) }
    }

    /// `release(_:)` for a `String` key.
    @discardableResult
    public func release(_ key: String) throws(NormCacheError) -> UInt32 {
        try key.withUTF8Bytes { (bytes) throws(NormCacheError) in try release(bytes) }
    }

    /// `retainCount(_:)` for a `String` key.
    public func retainCount(_ key: String) throws(NormCacheError) -> UInt32 {
        try key.withUTF8Bytes { (bytes) throws(NormCacheError) in try retainCount(bytes) }
    }

    private static func checkRetainKey(_ key: UnsafeRawBufferPointer) throws(NormCacheError) {
        try checkKey(key, what: "retained key")
        guard key.count <= StoreTransaction.longestRetainedKey else {
            throw NormCacheError(.invalidArgument, "retained key of \(key.count) bytes is longer than \(StoreTransaction.longestRetainedKey) bytes")
        }
    }
}
