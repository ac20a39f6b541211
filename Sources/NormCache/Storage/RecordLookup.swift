/// Lookups of records by key in one transaction through one cursor, opened at the first
/// lookup, without setting up a cursor every time as `mdb_get` does. A reader keeps one
/// for all the records it follows.
///
/// A key greater than the one the cursor stands on looks at the entry after it first.
/// Where records are asked for in the order they lie in the file — a list's records
/// sorted by key, as a feed's posts are; the comments of posts and their replies, whose
/// ids run on through a response — one step to the next entry of a leaf page
/// (`MDB_NEXT`) finds the record, or shows that it is absent (the entry after is a
/// greater key), where a search (`MDB_SET`) compares its way down the page again. A step
/// that lands before the key falls back to the search, and the steps then pause for the
/// next lookups, 1, 2, 4, … up to 64 of them, so that keys asked for in any other order
/// cost about what searches alone would.
struct RecordLookup: ~Copyable {
    /// The transaction the records are read in.
    let txn: StoreTransaction
    private var cursor: LMDBCursor?
    /// The key the cursor stands on (LMDB's copy, in the map), after a lookup that found
    /// its record or a step; nil when unknown.
    private var current: UnsafeRawBufferPointer?
    /// Lookups in key order left before a step is tried again.
    private var pausedSteps = 0
    /// The pause after the next step that lands before its key.
    private var nextPause = 1

    /// Lookups in `txn`.
    init(_ txn: StoreTransaction) {
        self.txn = txn
    }

    deinit {
        cursor?.close()
    }

    /// The stored bytes of the record `key`, or nil: a step from the cursor's entry when
    /// the key is greater and the steps do not pause, else a search.
    @inline(__always)
    mutating func record(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UnsafeRawBufferPointer? {
        if let from = current, key.count <= StorageKey.directLimit, KeyBytes.compare(from, key) < 0 {
            if pausedSteps > 0 {
                pausedSteps &-= 1
            } else if case .settled(let record) = try step(toward: key) {
                return record
            }
        }
        return try search(key)
    }

    /// Starts lookups in key order (a list's keys, sorted): steps are tried from the first.
    mutating func beginKeyOrder() {
        pausedSteps = 0
        nextPause = 1
    }

    /// The stored bytes of the record `key`, or nil, found by an `MDB_SET` search.
    @inline(__always)
    private mutating func search(_ key: UnsafeRawBufferPointer) throws(NormCacheError) -> UnsafeRawBufferPointer? {
        // A long key is stored under a hash of it: a plain get, the cursor left where it is.
        guard key.count <= StorageKey.directLimit else { return try txn.record(key) }
        let cursor = try openCursor()
        current = nil
        guard let found = try txn.lmdb({ () throws(LMDBError) in try cursor.findEntry(key) }) else { return nil }
        current = found.key
        return try txn.checked(found.value, key)
    }

    /// What a step from the cursor's entry found for a greater key.
    private enum Step {
        /// The key's record, or nil when the entry after is a greater key (or none is).
        case settled(UnsafeRawBufferPointer?)
        /// The entry after is a smaller key: a search must find the key.
        case before
    }

    /// Moves the cursor to the entry after its own and compares its key with `key`.
    private mutating func step(toward key: UnsafeRawBufferPointer) throws(NormCacheError) -> Step {
        guard let cursor else { return .before }
        current = nil
        guard let next = try txn.lmdb({ () throws(LMDBError) in try cursor.next() }) else { return .settled(nil) }
        current = next.key
        let order = KeyBytes.compare(next.key, key)
        guard order >= 0 else {
            pausedSteps = nextPause
            nextPause = Swift.min(nextPause &* 2, 64)
            return .before
        }
        nextPause = 1
        return .settled(order == 0 ? try txn.checked(next.value, key) : nil)
    }

    /// The cursor, opened at the first lookup.
    @inline(__always)
    private mutating func openCursor() throws(NormCacheError) -> LMDBCursor {
        if let cursor { return cursor }
        let opened = try txn.cursor()
        cursor = opened
        return opened
    }
}
