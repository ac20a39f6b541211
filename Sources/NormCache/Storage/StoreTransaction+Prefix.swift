import Glibc

/// Key groups: the records whose keys share a prefix form one contiguous range of
/// LMDB's ordered keys, so a group is read or deleted with a cursor positioned at its
/// start (`MDB_SET_RANGE`) that stops at its end, never a scan of the store.
extension StoreTransaction {
    /// The keys that start with `prefix`, in byte order, strictly after `after` when
    /// given, at most `limit` of them (0: all).
    func keys(withPrefix prefix: UnsafeRawBufferPointer, after: UnsafeRawBufferPointer?, limit: Int) throws(NormCacheError) -> [[UInt8]] {
        var found: [[UInt8]] = []
        try forEachKey(withPrefix: prefix, after: after, limit: limit) { found.append(Array($0)) }
        return found
    }

    /// Calls `visit` with the keys `keys(withPrefix:after:limit:)` lists, in order, each
    /// borrowed for the call (short keys straight from the memory map).
    func forEachKey(withPrefix prefix: UnsafeRawBufferPointer, after: UnsafeRawBufferPointer?, limit: Int,
                    _ visit: (UnsafeRawBufferPointer) -> Void) throws(NormCacheError) {
        var count = 0
        var run: [[UInt8]] = []
        // Keys come in order from the seek, so only the first ones can be `after` or before it.
        var pastAfter = after == nil
        func accept(_ key: UnsafeRawBufferPointer) -> Bool {
            if !pastAfter, let after { pastAfter = KeyBytes.compare(after, key) < 0 }
            if pastAfter, KeyBytes.hasPrefix(key, prefix) {
                visit(key)
                count += 1
            }
            return limit == 0 || count < limit
        }
        func flushRun() -> Bool {
            defer { run.removeAll(keepingCapacity: true) }
            for key in run.sorted(by: { $0.lexicographicallyPrecedes($1) }) where !key.withUnsafeBytes({ accept($0) }) { return false }
            return true
        }
        var seek = Array(prefix.prefix(StorageKey.directLimit))
        if let after {
            let afterStored = Array(after.prefix(StorageKey.directLimit))
            if seek.lexicographicallyPrecedes(afterStored) { seek = afterStored }
        }
        try forEachEntry(inGroup: prefix, from: seek) { (key, value) throws(NormCacheError) -> Bool in
            guard StorageKey.isLong(key) else { return (run.isEmpty || flushRun()) && accept(key) }
            guard let fullKey = StorageKey.recordKey(stored: key, value: value) else { throw damaged(key) }
            if let last = run.last, !last.prefix(StorageKey.directLimit).elementsEqual(key.prefix(StorageKey.directLimit)) {
                guard flushRun() else { return false }
            }
            run.append(fullKey)
            return true
        }
        _ = flushRun()
    }

    /// Deletes every record whose key starts with `prefix`; returns how many.
    func removeRecords(withPrefix prefix: UnsafeRawBufferPointer) throws(NormCacheError) -> Int {
        var removed = 0
        try forEachEntry(inGroup: prefix, from: Array(prefix.prefix(StorageKey.directLimit))) { (key, value, cursor) throws(NormCacheError) -> Bool in
            if prefix.count > StorageKey.directLimit {
                guard let fullKey = StorageKey.recordKey(stored: key, value: value) else { throw damaged(key) }
                guard fullKey.starts(with: prefix) else { return true }
            }
            do throws(LMDBStatus) { try cursor.deleteCurrent() } catch { throw Self.error(error, "mdb_cursor_del", path: path) }
            removed += 1
            return true
        }
        return removed
    }

    /// Calls `visit` with each LMDB entry from the first key at or after `start` while
    /// the keys stay within the stored form of `prefix`; `visit` returns false to stop.
    private func forEachEntry(inGroup prefix: UnsafeRawBufferPointer, from start: [UInt8],
                              _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(NormCacheError) -> Bool) throws(NormCacheError) {
        try forEachEntry(inGroup: prefix, from: start) { (key, value, _) throws(NormCacheError) -> Bool in try visit(key, value) }
    }

    private func forEachEntry(inGroup prefix: UnsafeRawBufferPointer, from start: [UInt8],
                              _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, LMDBCursor) throws(NormCacheError) -> Bool) throws(NormCacheError) {
        let storedPrefix = UnsafeRawBufferPointer(rebasing: prefix.prefix(StorageKey.directLimit))
        let cursor: LMDBCursor
        do throws(LMDBStatus) { cursor = try txn.cursor(records) } catch { throw Self.error(error, "mdb_cursor_open", path: path) }
        defer { cursor.close() }
        do {
            var entry = try start.isEmpty ? cursor.first() : start.withBytes { key throws(LMDBStatus) in try cursor.seek(atOrAfter: key) }
            while let (key, value) = entry, KeyBytes.hasPrefix(key, storedPrefix) {
                guard try visit(key, try checked(value, key), cursor) else { return }
                entry = try cursor.next()
            }
        } catch let error as NormCacheError {
            throw error
        } catch {
            throw Self.error(error as? LMDBStatus ?? LMDBStatus(rawValue: EIO), "mdb_cursor_get", path: path)
        }
    }
}
