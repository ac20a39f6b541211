import TestSupport
import Testing
@testable import NormCache

/// The storage layer through its own API: `RecordStore` transactions, `StoreTransaction`'s
/// record calls and key groups, `RecordWriteSession` placing records (appended past the
/// last stored key, inserted before it, found when stored) and `RecordLookup`. Record
/// bytes are opaque here: no record format is involved.
@Suite struct RecordStoreTests {
    /// `count` bytes that differ from their neighbours, from `seed` on.
    static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    /// Stores `bytes` as the record `key` with `setRecord` in the write transaction `txn`.
    static func setRecord(_ key: String, _ bytes: [UInt8], in txn: StoreTransaction) throws(NormCacheError) {
        try key.withUTF8Bytes { (key) throws(NormCacheError) in
            try bytes.withBytes { (bytes) throws(NormCacheError) in try txn.setRecord(key, bytes) }
        }
    }

    /// Stores each record's bytes under its key with `setRecord`, in one write.
    static func set(_ records: [(key: String, bytes: [UInt8])], in store: RecordStore) throws(NormCacheError) {
        try store.write { (txn) throws(NormCacheError) in
            for (key, bytes) in records { try setRecord(key, bytes, in: txn) }
        }
    }

    /// The stored bytes of the record `key` as `StoreTransaction.record` finds them, or nil.
    static func stored(_ key: String, in store: RecordStore) throws(NormCacheError) -> [UInt8]? {
        try store.read { (txn) throws(NormCacheError) in
            try key.withUTF8Bytes { (key) throws(NormCacheError) in try txn.record(key).map(Array.init) }
        }
    }

    /// The records of `keys` as one `RecordLookup` finds them in one read, in this order.
    static func lookUp(_ keys: [String], in store: RecordStore) throws(NormCacheError) -> [[UInt8]?] {
        try store.read { (txn) throws(NormCacheError) in
            var lookup = RecordLookup(txn)
            var found: [[UInt8]?] = []
            for key in keys {
                found.append(try Array(key.utf8).withBytes { (key) throws(NormCacheError) in try lookup.record(key).map(Array.init) })
            }
            return found
        }
    }

    /// The keys `keys(withPrefix:after:limit:)` lists, as strings (compare their `utf8`
    /// where canonically equal strings could hide a difference).
    static func keys(_ prefix: String, after: String? = nil, limit: Int = 0, in store: RecordStore) throws(NormCacheError) -> [String] {
        try store.read { (txn) throws(NormCacheError) in
            try prefix.withUTF8Bytes { (prefix) throws(NormCacheError) in
                guard let after else { return try txn.keys(withPrefix: prefix, after: nil, limit: limit) }
                return try after.withUTF8Bytes { (after) throws(NormCacheError) in try txn.keys(withPrefix: prefix, after: after, limit: limit) }
            }
        }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Places the record `key` in `session` with room for `bytes`: nil when the key was
    /// new (and `bytes` are then written into the room, which must be exactly their
    /// size), else the bytes stored under it.
    static func place(_ key: String, _ bytes: [UInt8], in session: inout RecordWriteSession) throws(NormCacheError) -> [UInt8]? {
        let placement = try Array(key.utf8).withBytes { (key) throws(NormCacheError) in try session.place(key, reserving: bytes.count) }
        switch placement {
        case .reserved(let room):
            bytes.withUnsafeBytes { if let base = $0.baseAddress { room.copyMemory(from: base, byteCount: bytes.count) } }
            return nil
        case .existing(let stored):
            return Array(stored)
        }
    }

    /// Places each record of `records`, in order, in one session of one write; returns
    /// what each placement found (see `place`).
    static func placeAll(_ records: [(key: String, bytes: [UInt8])], in store: RecordStore) throws(NormCacheError) -> [[UInt8]?] {
        try store.write { (txn) throws(NormCacheError) in
            var session = try RecordWriteSession(txn)
            var found: [[UInt8]?] = []
            for (key, bytes) in records { found.append(try place(key, bytes, in: &session)) }
            return found
        }
    }

    /// Stores `bytes` as the record `key`, which `session` has found stored.
    static func replace(_ key: String, with bytes: [UInt8], in session: borrowing RecordWriteSession) throws(NormCacheError) {
        try Array(key.utf8).withBytes { (key) throws(NormCacheError) in
            try bytes.withBytes { (bytes) throws(NormCacheError) in try session.replace(key, with: bytes) }
        }
    }

    /// Deletes the records `keys` one by one in one write; returns what each deletion answered.
    static func remove(_ keys: [String], in store: RecordStore) throws(NormCacheError) -> [Bool] {
        try store.write { (txn) throws(NormCacheError) -> [Bool] in
            try keys.map { (key) throws(NormCacheError) in
                try key.withUTF8Bytes { (key) throws(NormCacheError) in try txn.removeRecord(key) }
            }
        }
    }

    /// Deletes the key groups of `prefixes` one after the other in one write; returns how
    /// many records each deletion took.
    static func removeGroups(_ prefixes: [String], in store: RecordStore) throws(NormCacheError) -> [Int] {
        try store.write { (txn) throws(NormCacheError) -> [Int] in
            try prefixes.map { (prefix) throws(NormCacheError) in
                try prefix.withUTF8Bytes { (prefix) throws(NormCacheError) in try txn.removeRecords(withPrefix: prefix) }
            }
        }
    }

    /// The number of records.
    static func count(in store: RecordStore) throws(NormCacheError) -> Int {
        try store.read { (txn) throws(NormCacheError) in try txn.recordCount() }
    }

    @Test func opaqueBytesAreStoredAndReadBackExactly() throws {
        let test = try TestCache()
        let store = test.cache.store
        let large = Self.bytes(10_000, seed: 3)
        try Self.set([("A:1", [0x00, 0xFF, 0x01, 0x80, 0x00]), ("A:2", []), ("A:3", large), ("A\u{0}4", [0x7F])], in: store)
        #expect(try Self.stored("A:1", in: store) == [0x00, 0xFF, 0x01, 0x80, 0x00])
        #expect(try Self.stored("A:2", in: store) == [])
        #expect(try Self.stored("A:3", in: store) == large)
        #expect(try Self.stored("A\u{0}4", in: store) == [0x7F])
        #expect(try Self.stored("A:4", in: store) == nil)
        #expect(try Self.count(in: store) == 4)
        try Self.set([("A:1", [0x07])], in: store)
        #expect(try Self.stored("A:1", in: store) == [0x07])
        #expect(try Self.count(in: store) == 4)
    }

    @Test func keysAreBytesNotCanonicallyEqualStrings() throws {
        let test = try TestCache()
        let store = test.cache.store
        // Swift holds these two equal; their bytes differ, and so do their records.
        try Self.set([("caf\u{E9}", [1]), ("cafe\u{301}", [2])], in: store)
        #expect(try Self.stored("caf\u{E9}", in: store) == [1])
        #expect(try Self.stored("cafe\u{301}", in: store) == [2])
        #expect(try Self.keys("caf", in: store).map { Array($0.utf8) } == [Array("cafe\u{301}".utf8), Array("caf\u{E9}".utf8)])
    }

    @Test func aNewKeyGetsRoomOfTheSizeAskedAndALookupReadsWhatWasWrittenThere() throws {
        let test = try TestCache()
        let store = test.cache.store
        // One byte, a few, and more than a page (LMDB reserves overflow pages for it).
        let records: [(key: String, bytes: [UInt8])] = [("R:1", [0x2A]), ("R:2", Self.bytes(37, seed: 1)), ("R:3", Self.bytes(5_000, seed: 2))]
        // Placed, then looked up in the same write (before the commit).
        let (found, inTheWrite) = try store.write { (txn) throws(NormCacheError) -> ([[UInt8]?], [[UInt8]?]) in
            var session = try RecordWriteSession(txn)
            var found: [[UInt8]?] = []
            for (key, bytes) in records { found.append(try Self.place(key, bytes, in: &session)) }
            var lookup = RecordLookup(txn)
            var inTheWrite: [[UInt8]?] = []
            for (key, _) in records {
                inTheWrite.append(try Array(key.utf8).withBytes { (key) throws(NormCacheError) in try lookup.record(key).map(Array.init) })
            }
            return (found, inTheWrite)
        }
        #expect(found == [nil, nil, nil])
        #expect(inTheWrite == records.map(\.bytes))
        #expect(try Self.lookUp(["R:1", "R:2", "R:3"], in: store) == records.map(\.bytes))
        #expect(try Self.count(in: store) == 3)
    }

    @Test func aStoredKeyAnswersExistingWithItsBytesAndReplaceRewritesIt() throws {
        let test = try TestCache()
        let store = test.cache.store
        try Self.set([("M:5", [5]), ("M:7", [7, 7])], in: store)
        let found = try store.write { (txn) throws(NormCacheError) -> [[UInt8]?] in
            var session = try RecordWriteSession(txn)
            // Below the last stored key, and the last stored key itself.
            let found = [try Self.place("M:5", Self.bytes(99, seed: 0), in: &session), try Self.place("M:7", [0], in: &session)]
            try Self.replace("M:7", with: [8, 8, 8], in: session)
            return found
        }
        #expect(found == [[5], [7, 7]])
        #expect(try Self.lookUp(["M:5", "M:7"], in: store) == [[5], [8, 8, 8]])
        #expect(try Self.count(in: store) == 2)
    }

    @Test func keysPastTheLastStoredOneAreAppendedAndKeysBeforeItInserted() throws {
        let test = try TestCache()
        let store = test.cache.store
        try Self.set([("M:5", [5]), ("M:7", [7])], in: store)
        // Before every stored key, between two, equal to the last, then past it.
        let found = try Self.placeAll([("A:1", [1]), ("M:6", [6]), ("M:7", [0]), ("M:8", [8]), ("Z:1", [26])], in: store)
        #expect(found == [nil, nil, [7], nil, nil])
        #expect(try Self.keys("", in: store) == ["A:1", "M:5", "M:6", "M:7", "M:8", "Z:1"])
        #expect(try Self.lookUp(["A:1", "M:5", "M:6", "M:7", "M:8", "Z:1"], in: store) == [[1], [5], [6], [7], [8], [26]])
    }

    @Test func anEmptyStoreTakesEveryKeyAppended() throws {
        let test = try TestCache()
        let store = test.cache.store
        #expect(try Self.placeAll([("K:1", [1]), ("K:2", [2]), ("K:3", [3])], in: store) == [nil, nil, nil])
        #expect(try Self.keys("K:", in: store) == ["K:1", "K:2", "K:3"])
        #expect(try Self.lookUp(["K:1", "K:2", "K:3"], in: store) == [[1], [2], [3]])
    }

    @Test func aKeyOutOfOrderAfterAppendingLandsAndAKeyPlacedAgainFindsItsFirstBytes() throws {
        let test = try TestCache()
        let store = test.cache.store
        try Self.set([("M:5", [5])], in: store)
        // Z:1 is appended; B:1, below it, is refused by the append and inserted; Z:1
        // placed again in the same session finds the bytes written the first time.
        let found = try Self.placeAll([("Z:1", [1, 2, 3]), ("B:1", [4]), ("Z:1", [9, 9, 9])], in: store)
        #expect(found == [nil, nil, [1, 2, 3]])
        #expect(try Self.keys("", in: store) == ["B:1", "M:5", "Z:1"])
        #expect(try Self.lookUp(["B:1", "M:5", "Z:1"], in: store) == [[4], [5], [1, 2, 3]])
    }

    @Test func longKeysArePlacedReplacedLookedUpAndRemoved() throws {
        let test = try TestCache()
        let store = test.cache.store
        let shared = "L:" + String(repeating: "a", count: StorageKey.directLimit + 98)
        let (first, second) = (shared + "b", shared + "c")
        try Self.set([("A:1", [1])], in: store)
        let found = try Self.placeAll([(first, Self.bytes(300, seed: 4)), (second, [2]), ("Z:1", [26])], in: store)
        #expect(found == [nil, nil, nil])
        #expect(try Self.lookUp([first, second, "Z:1", shared, shared + "d", String(first.dropLast())], in: store)
            == [Self.bytes(300, seed: 4), [2], [26], nil, nil, nil])
        // Found stored, then rewritten.
        let again = try store.write { (txn) throws(NormCacheError) -> [UInt8]? in
            var session = try RecordWriteSession(txn)
            let stored = try Self.place(first, [0], in: &session)
            try Self.replace(first, with: [3, 3], in: session)
            return stored
        }
        #expect(again == Self.bytes(300, seed: 4))
        #expect(try Self.stored(first, in: store) == [3, 3])
        #expect(try Self.remove([first, first, shared + "d"], in: store) == [true, false, false])
        #expect(try Self.lookUp([first, second], in: store) == [nil, [2]])
        #expect(try Self.keys("", in: store) == ["A:1", second, "Z:1"])
        #expect(try Self.count(in: store) == 3)
    }

    @Test func keysEitherSideOfTheDirectLimitStayApart() throws {
        let test = try TestCache()
        let store = test.cache.store
        let direct = String(repeating: "Q", count: StorageKey.directLimit)
        let found = try Self.placeAll([(direct, [1]), (direct + "Q", [2]), (direct + "QQ", [3])], in: store)
        #expect(found == [nil, nil, nil])
        #expect(try Self.keys("Q", in: store) == [direct, direct + "Q", direct + "QQ"])
        #expect(try Self.keys(direct, after: direct, in: store) == [direct + "Q", direct + "QQ"])
        #expect(try Self.lookUp([direct, direct + "Q", direct + "QQ", direct + "QQQ"], in: store) == [[1], [2], [3], nil])
        #expect(try Self.removeGroups([direct + "Q"], in: store) == [2])
        #expect(try Self.keys("", in: store) == [direct])
    }

    @Test func longKeysThatShareTheirStoredBytesListInByteOrder() throws {
        let test = try TestCache()
        let store = test.cache.store
        // Eight keys alike in their first 503 bytes: stored under hashes, in hash order,
        // and listed in byte order all the same.
        let shared = "Droid:1.friends(" + String(repeating: "x", count: StorageKey.directLimit)
        let long = ["a)", "a)x", "b)", "c)", "d)", "e)", "f)", "g)"].map { shared + $0 }
        let records: [(key: String, bytes: [UInt8])] = [("Droid:0", [0])] + long.enumerated().map { ($0.element, [UInt8($0.offset + 1)]) } + [("Droid:2", [9])]
        #expect(try Self.placeAll(records, in: store) == Array(repeating: nil, count: 10))
        #expect(try Self.keys("Droid:", in: store) == ["Droid:0"] + long + ["Droid:2"])
        #expect(try Self.keys(shared, in: store) == long)
        #expect(try Self.keys(shared + "a", in: store) == [long[0], long[1]])
        #expect(try Self.keys("Droid:", after: long[0], limit: 2, in: store) == [long[1], long[2]])
        #expect(try Self.keys("Droid:", after: long[7], in: store) == ["Droid:2"])
        #expect(try Self.keys(shared, after: shared + "c", limit: 3, in: store) == [long[3], long[4], long[5]])
        #expect(try Self.removeGroups([shared + "a", shared, "Droid:"], in: store) == [2, 6, 2])
        #expect(try Self.count(in: store) == 0)
    }

    @Test func keyGroupsListPageAndRemoveExactly() throws {
        let test = try TestCache()
        let store = test.cache.store
        try Self.set(["Pet:2", "Pets:1", "Pet:10", "Person:1", "Pet:1", "Pe", "Pet:", "Planet:1"].map { ($0, [1]) }, in: store)
        #expect(try Self.keys("Pet:", in: store) == ["Pet:", "Pet:1", "Pet:10", "Pet:2"])
        #expect(try Self.keys("Pet:", after: "Pet:1", limit: 2, in: store) == ["Pet:10", "Pet:2"])
        #expect(try Self.keys("Pet:", after: "A", limit: 1, in: store) == ["Pet:"])
        #expect(try Self.keys("Pet:", after: "Pet:2", in: store) == [])
        #expect(try Self.keys("Cat:", in: store) == [])
        #expect(try Self.removeGroups(["Pet:"], in: store) == [4])
        #expect(try Self.remove(["Pe", "Pe"], in: store) == [true, false])
        #expect(try Self.keys("", in: store) == ["Person:1", "Pets:1", "Planet:1"])
        try store.write { (txn) throws(NormCacheError) in try txn.removeAllRecords() }
        #expect(try Self.count(in: store) == 0)
        #expect(try Self.keys("", in: store) == [])
    }

    @Test func anErrorInsideAWriteLeavesNothingWritten() throws {
        let test = try TestCache()
        let store = test.cache.store
        try Self.set([("A:1", [1]), ("P:1", [2])], in: store)
        let stop = NormCacheError(.data, "stopped on purpose")
        // A record set, one placed, a group removed; then everything removed.
        #expect(throws: stop) {
            try store.write { (txn) throws(NormCacheError) in
                try Self.setRecord("A:1", [9], in: txn)
                var session = try RecordWriteSession(txn)
                _ = try Self.place("B:1", [3], in: &session)
                _ = try "P:".withUTF8Bytes { (prefix) throws(NormCacheError) in try txn.removeRecords(withPrefix: prefix) }
                throw stop
            }
        }
        #expect(throws: stop) {
            try store.write { (txn) throws(NormCacheError) in
                try txn.removeAllRecords()
                throw stop
            }
        }
        #expect(try Self.keys("", in: store) == ["A:1", "P:1"])
        #expect(try Self.lookUp(["A:1", "P:1", "B:1"], in: store) == [[1], [2], nil])
    }

    /// A new cache whose map starts at 1 MiB, the smallest.
    private static func cacheWithOneMebibyteMap() throws -> TestCache {
        var options = CacheOptions()
        options.mapSize = 1 << 20
        return try TestCache(options: options)
    }

    @Test func aWriteThatFillsTheMapRunsItsBodyAgainInADoubledMap() throws {
        let test = try Self.cacheWithOneMebibyteMap()
        let store = test.cache.store
        // 2 MiB takes 513 overflow pages: more than a map of 1 MiB or 2 MiB holds.
        let big = Self.bytes(2 << 20, seed: 5)
        var runs = 0
        try store.write { (txn) throws(NormCacheError) in
            runs += 1
            try "Big:1".withUTF8Bytes { (key) throws(NormCacheError) in
                try big.withBytes { (bytes) throws(NormCacheError) in try txn.setRecord(key, bytes) }
            }
        }
        #expect(runs == 3)
        #expect(try store.mapFacts().mapSize == 4 << 20)
        #expect(try Self.stored("Big:1", in: store) == big)
    }

    @Test func mapFactsDescribeTheMapAndAReservingWriteGrowsItFirst() throws {
        let test = try Self.cacheWithOneMebibyteMap()
        let store = test.cache.store
        let before = try store.mapFacts()
        #expect(before.mapSize == 1 << 20)
        #expect(before.pageSize == 4096)
        #expect(before.bytesUsed > 0 && before.bytesUsed % 4096 == 0)
        // Room for the pages in use and twice the bytes announced, before the body runs.
        var runs = 0
        try store.write(reserving: 3 << 20) { (_) throws(NormCacheError) in runs += 1 }
        #expect(runs == 1)
        #expect(try store.mapFacts().mapSize == before.bytesUsed + (6 << 20))
    }

    @Test func aReservingWriteJustPastTheMapGrowsItByAStepNotToTheByte() throws {
        let test = try Self.cacheWithOneMebibyteMap()
        let store = test.cache.store
        let before = try store.mapFacts()
        // Twice these bytes reach one page past the map: a map grown to the byte would
        // need growing again at the next such write (and every other process with it).
        let bytes = (before.mapSize - before.bytesUsed) / 2 + 2048
        try store.write(reserving: bytes) { (_) throws(NormCacheError) in }
        #expect(try store.mapFacts().mapSize == 2 << 20)
        try store.write(reserving: bytes) { (_) throws(NormCacheError) in }
        #expect(try store.mapFacts().mapSize == 2 << 20)
    }

    @Test func aClosedStoreRefusesReadsWritesAndMapFacts() throws {
        let test = try TestCache()
        try Self.set([("A:1", [1])], in: test.cache.store)
        let store = try RecordStore(path: test.path, options: CacheOptions())
        #expect(store.close())
        #expect(!store.close())
        let closed = NormCacheError(.invalidArgument, "the cache '\(test.path)' is closed")
        var runs = 0
        #expect(throws: closed) { try store.read { (_) throws(NormCacheError) in runs += 1 } }
        #expect(throws: closed) { try store.write { (_) throws(NormCacheError) in runs += 1 } }
        #expect(throws: closed) { try store.mapFacts() }
        #expect(runs == 0)
        // The file's other handle is still open.
        #expect(try Self.stored("A:1", in: test.cache.store) == [1])
    }

    @Test func aReadOnlyStoreReadsAndRefusesWritesBeforeTheirBodyRuns() throws {
        let test = try TestCache()
        try Self.set([("A:1", [1])], in: test.cache.store)
        var options = CacheOptions()
        options.readOnly = true
        let reader = try RecordStore(path: test.path, options: options)
        defer { _ = reader.close() }
        #expect(try Self.stored("A:1", in: reader) == [1])
        let refused = NormCacheError(.readOnly, "'\(test.path)' is open read-only")
        var runs = 0
        #expect(throws: refused) { try reader.write { (_) throws(NormCacheError) in runs += 1 } }
        #expect(throws: refused) { try Self.set([("A:1", [2])], in: reader) }
        #expect(throws: refused) { try reader.write(reserving: 1 << 30) { (_) throws(NormCacheError) in runs += 1 } }
        #expect(runs == 0)
        #expect(try reader.mapFacts().mapSize == 64 << 20)
        // Writes through the writable handle show in the read-only one.
        try Self.set([("A:1", [3])], in: test.cache.store)
        #expect(try Self.stored("A:1", in: reader) == [3])
        // Closed, it says so first, for writes as for reads.
        #expect(reader.close())
        let closed = NormCacheError(.invalidArgument, "the cache '\(test.path)' is closed")
        #expect(throws: closed) { try reader.write { (_) throws(NormCacheError) in runs += 1 } }
        #expect(throws: closed) { try Self.stored("A:1", in: reader) }
        #expect(runs == 0)
    }
}
