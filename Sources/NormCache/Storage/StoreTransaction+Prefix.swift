import Glibc

/// Key groups: the records whose keys share a prefix form one contiguous range of
/// LMDB's ordered keys, so a group is read or deleted with a cursor positioned at its
/// start (`MDB_SET_RANGE`) that stops at its end, never a scan of the store.
///
/// The walks keep their state in values passed along (`inout`), not in variables that
/// closures capture: a captured variable is boxed and every access to it checked at run
/// time, which cost more than the walk itself.
extension StoreTransaction {
    /// The keys that start with `prefix`, in byte order, strictly after `after` when
    /// given, at most `limit` of them (0: all).
    func keys(withPrefix prefix: UnsafeRawBufferPointer, after: UnsafeRawBufferPointer?, limit: Int) throws(NormCacheError) -> [[UInt8]] {
        var found: [[UInt8]] = []
        try forEachKey(withPrefix: prefix, after: after, limit: limit, into: &found) { found, key in found.append(Array(key)) }
        return found
    }

    /// Calls `visit` with `sink` and each key `keys(withPrefix:after:limit:)` lists, in
    /// order, each borrowed for the call (short keys straight from the memory map).
    func forEachKey<Sink: ~Copyable>(withPrefix prefix: UnsafeRawBufferPointer, after: UnsafeRawBufferPointer?, limit: Int,
                                     into sink: inout Sink,
                                     _ visit: (inout Sink, UnsafeRawBufferPointer) -> Void) throws(NormCacheError) {
        var seek = Array(prefix.prefix(StorageKey.directLimit))
        if let after {
            let afterStored = Array(after.prefix(StorageKey.directLimit))
            if seek.lexicographicallyPrecedes(afterStored) { seek = afterStored }
        }
        var listing = KeyListing(prefix: prefix, after: after, limit: limit)
        let walk = try GroupWalk(self, prefix: prefix)
        defer { walk.close() }
        var entry = try walk.first(from: seek)
        while let (key, value) = entry {
            if StorageKey.isLong(key) {
                guard let fullKey = StorageKey.recordKey(stored: key, value: value) else { throw damaged(key) }
                guard listing.add(long: fullKey, &sink, visit) else { return }
            } else {
                guard listing.add(key, &sink, visit) else { return }
            }
            entry = try walk.next()
        }
        _ = listing.flushLongKeys(&sink, visit)
    }

    /// Calls `visit` with the key and stored bytes of each record whose key starts with
    /// `prefix`, in key order, each borrowed for the call.
    func forEachRecord(withPrefix prefix: UnsafeRawBufferPointer,
                       _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(NormCacheError) -> Void) throws(NormCacheError) {
        for key in try keys(withPrefix: prefix, after: nil, limit: 0) {
            try key.withBytes { (key) throws(NormCacheError) in
                guard let stored = try record(key) else { throw damaged(key) }
                try visit(key, stored)
            }
        }
    }

    /// Deletes every record whose key starts with `prefix`; returns how many.
    func removeRecords(withPrefix prefix: UnsafeRawBufferPointer) throws(NormCacheError) -> Int {
        var removed = 0
        let walk = try GroupWalk(self, prefix: prefix)
        defer { walk.close() }
        var entry = try walk.first(from: Array(prefix.prefix(StorageKey.directLimit)))
        while let (key, value) = entry {
            if prefix.count > StorageKey.directLimit {
                guard let fullKey = StorageKey.recordKey(stored: key, value: value) else { throw damaged(key) }
                guard fullKey.starts(with: prefix) else {
                    entry = try walk.next()
                    continue
                }
            }
            entry = try walk.deleteAndNext()
            removed += 1
        }
        if removed > 0 { changes?.notePrefix(prefix) }
        return removed
    }
}

/// The keys a search has listed: it checks each against the prefix and `after`, and
/// counts to the limit. Long keys that share their first bytes come hashed out of
/// order and are sorted as a run before they are listed.
private struct KeyListing {
    let prefix: UnsafeRawBufferPointer
    let after: UnsafeRawBufferPointer?
    let limit: Int
    private var count = 0
    /// Keys come in order from the seek, so only the first ones can be `after` or before it.
    private var pastAfter: Bool
    private var longKeys: [[UInt8]] = []

    init(prefix: UnsafeRawBufferPointer, after: UnsafeRawBufferPointer?, limit: Int) {
        self.prefix = prefix
        self.after = after
        self.limit = limit
        pastAfter = after == nil
    }

    /// Lists a key stored as it is (after the run of long keys before it); returns false
    /// when the limit is reached.
    mutating func add<Sink: ~Copyable>(_ key: UnsafeRawBufferPointer, _ sink: inout Sink,
                                       _ visit: (inout Sink, UnsafeRawBufferPointer) -> Void) -> Bool {
        guard longKeys.isEmpty || flushLongKeys(&sink, visit) else { return false }
        return accept(key, &sink, visit)
    }

    /// Adds a long key to its run; returns false when the limit is reached.
    mutating func add<Sink: ~Copyable>(long key: [UInt8], _ sink: inout Sink,
                                       _ visit: (inout Sink, UnsafeRawBufferPointer) -> Void) -> Bool {
        if let last = longKeys.last, !last.prefix(StorageKey.directLimit).elementsEqual(key.prefix(StorageKey.directLimit)) {
            guard flushLongKeys(&sink, visit) else { return false }
        }
        longKeys.append(key)
        return true
    }

    /// Lists the run of long keys in order; returns false when the limit is reached.
    mutating func flushLongKeys<Sink: ~Copyable>(_ sink: inout Sink, _ visit: (inout Sink, UnsafeRawBufferPointer) -> Void) -> Bool {
        let run = longKeys.sorted { $0.lexicographicallyPrecedes($1) }
        longKeys.removeAll(keepingCapacity: true)
        for key in run {
            let more = key.withUnsafeBytes { accept($0, &sink, visit) }
            guard more else { return false }
        }
        return true
    }

    @inline(__always)
    private mutating func accept<Sink: ~Copyable>(_ key: UnsafeRawBufferPointer, _ sink: inout Sink,
                                                  _ visit: (inout Sink, UnsafeRawBufferPointer) -> Void) -> Bool {
        if !pastAfter, let after { pastAfter = KeyBytes.compare(after, key) < 0 }
        if pastAfter, KeyBytes.hasPrefix(key, prefix) {
            visit(&sink, key)
            count += 1
        }
        return limit == 0 || count < limit
    }
}

/// A cursor over the LMDB entries of a key group: from the first key at or after a
/// start while the keys stay within the stored form of the prefix. Each move gives the
/// entry it reaches (its value checked against the map), or nil past the group.
private struct GroupWalk {
    typealias Entry = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

    private let txn: StoreTransaction
    private let cursor: LMDBCursor
    private let storedPrefix: UnsafeRawBufferPointer

    init(_ txn: StoreTransaction, prefix: UnsafeRawBufferPointer) throws(NormCacheError) {
        self.txn = txn
        storedPrefix = UnsafeRawBufferPointer(rebasing: prefix.prefix(StorageKey.directLimit))
        cursor = try txn.cursor()
    }

    /// Moves to the first key at or after `start` (empty: the first key).
    func first(from start: [UInt8]) throws(NormCacheError) -> Entry? {
        try within(txn.lmdb { () throws(LMDBError) in
            try start.isEmpty ? cursor.first() : start.withBytes { (key) throws(LMDBError) in try cursor.seek(atOrAfter: key) }
        })
    }

    /// Moves to the next key.
    @inline(__always)
    func next() throws(NormCacheError) -> Entry? {
        try within(txn.lmdb { () throws(LMDBError) in try cursor.next() })
    }

    /// Deletes the entry at the cursor and moves to the one after it.
    func deleteAndNext() throws(NormCacheError) -> Entry? {
        try txn.lmdb { () throws(LMDBError) in try cursor.deleteCurrent() }
        return try next()
    }

    /// Closes the cursor.
    func close() {
        cursor.close()
    }

    @inline(__always)
    private func within(_ entry: Entry?) throws(NormCacheError) -> Entry? {
        guard let (key, value) = entry, KeyBytes.hasPrefix(key, storedPrefix) else { return nil }
        return (key, try txn.checked(value, key))
    }
}
