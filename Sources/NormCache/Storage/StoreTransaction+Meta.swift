/// Entries of the meta database beside the format version and the key salt: what a
/// cache keeps about itself for every handle that opens it (its saved rules).
extension StoreTransaction {
    /// The value of the meta entry `name`, in place in the map (valid as `record`'s
    /// values are), or nil.
    func metaValue(_ name: StaticString) throws(NormCacheError) -> UnsafeRawBufferPointer? {
        guard let value = try lmdb({ () throws(LMDBError) in try txn.get(meta, Self.key(name)) }) else { return nil }
        return try checked(value, Self.key(name))
    }

    /// Stores `value` as the meta entry `name`.
    func setMetaValue(_ name: StaticString, _ value: UnsafeRawBufferPointer) throws(NormCacheError) {
        try lmdb { () throws(LMDBError) in try txn.put(meta, Self.key(name), value) }
    }

    /// Deletes the meta entry `name`; returns false when there was none.
    func removeMetaValue(_ name: StaticString) throws(NormCacheError) -> Bool {
        try lmdb { () throws(LMDBError) in try txn.delete(meta, Self.key(name)) }
    }

    /// The bytes of a meta entry's name.
    private static func key(_ name: StaticString) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
    }
}
