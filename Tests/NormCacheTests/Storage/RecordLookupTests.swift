import TestSupport
import Testing
@testable import NormCache

/// `RecordLookup.record`: for a key greater than the cursor's, a step to the cursor's next
/// entry first, a search when the step lands before the key (and the steps pause), a
/// search for any other key. Whatever path each lookup takes, it finds what a search of
/// the key alone finds: keys sorted (a list's records), and keys in runs that go up with
/// jumps between them (the comments of posts, a reader's other lookups between them).
@Suite struct RecordLookupTests {
    /// `K:` and the number in three digits, so that key order is number order.
    static func key(_ number: Int) -> String {
        "K:" + String(repeating: "0", count: 3 - String(number).count) + String(number)
    }

    /// The bytes stored under key `number`.
    static func bytes(_ number: Int) -> [UInt8] { [UInt8(number % 251), UInt8(number / 251), 7] }

    /// The records of `keys` as one `RecordLookup` finds them in one read, in this order.
    static func lookUp(_ keys: [String], in store: RecordStore) throws(NormCacheError) -> [[UInt8]?] {
        try store.read { (txn) throws(NormCacheError) in try lookUp(keys, in: txn) }
    }

    /// The records of `keys` as one `RecordLookup` finds them in `txn` (`beginKeyOrder`,
    /// then `record` for each).
    static func lookUp(_ keys: [String], in txn: StoreTransaction) throws(NormCacheError) -> [[UInt8]?] {
        var lookup = RecordLookup(txn)
        lookup.beginKeyOrder()
        var found: [[UInt8]?] = []
        for key in keys {
            found.append(try Array(key.utf8).withBytes { (key) throws(NormCacheError) in
                try lookup.record(key).map(Array.init)
            })
        }
        return found
    }

    /// Keys 0 to 199, without 50, 51, 120 and 199, with `K:010a` between 10 and 11 and a
    /// key of 600 bytes (stored under a hash of it) after 150.
    static func store() throws -> (TestCache, long: String) {
        let test = try TestCache()
        let long = key(150) + String(repeating: "x", count: 597)
        var records = (0..<200).filter { ![50, 51, 120, 199].contains($0) }.map { (key: Self.key($0), bytes: Self.bytes($0)) }
        records.append((key(10) + "a", [10, 10]))
        records.append((long, [150, 150, 150]))
        try RecordStoreTests.set(records, in: test.cache.store)
        return (test, long)
    }

    @Test func keysInOrderFindWhatSearchesFindOnEveryPath() throws {
        let (test, long) = try Self.store()
        let store = test.cache.store
        // Side by side (steps), an extra key between 10 and 11 (a step lands on it,
        // before 11), two absent keys in a row, then every tenth key where nine lie
        // between (steps land before them and pause), a long key, the absent last key
        // and two keys past the last stored one.
        let wanted = (0...60).map(Self.key) + stride(from: 100, through: 150, by: 10).map(Self.key) + [long]
            + stride(from: 160, through: 190, by: 10).map(Self.key) + [Self.key(198), Self.key(199), "K:300", "K:301"]
        let ordered = wanted.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(ordered == wanted)
        let expected = wanted.map { key -> [UInt8]? in
            if key == long { return [150, 150, 150] }
            guard let number = Int(key.dropFirst(2)), number < 200, ![50, 51, 120, 199].contains(number) else { return nil }
            return Self.bytes(number)
        }
        #expect(try Self.lookUp(wanted, in: store) == expected)
        #expect(try wanted.map { (key) throws(NormCacheError) in try RecordStoreTests.stored(key, in: store) } == expected)
        #expect(expected.compactMap { $0 }.count == wanted.count - 6)
    }

    /// What a search of each of `keys` alone finds in the store of `store()`.
    static func searched(_ keys: [String], long: String) -> [[UInt8]?] {
        keys.map { key -> [UInt8]? in
            if key == long { return [150, 150, 150] }
            if key == Self.key(10) + "a" { return [10, 10] }
            guard key.hasPrefix("K:"), key.count == 5, let number = Int(key.dropFirst(2)), number < 200,
                  ![50, 51, 120, 199].contains(number) else { return nil }
            return Self.bytes(number)
        }
    }

    @Test func keysInRisingRunsWithJumpsFindWhatSearchesFind() throws {
        let (test, long) = try Self.store()
        // Runs that go up (steps), a jump back (a search), a jump ahead (a step lands
        // before the key: a search, then the steps pause for one lookup), a long key
        // between (a plain get that leaves the cursor where it was), an absent key that
        // leaves the cursor nowhere, an extra key a step lands on, a key of another group,
        // an absent key a step shows absent (120: the entry after is 121) and keys past
        // the last.
        let keys = [Self.key(20), Self.key(21), Self.key(22), Self.key(5), Self.key(23), Self.key(24), Self.key(25), long,
                    Self.key(26), Self.key(50), Self.key(52), Self.key(53), Self.key(9), Self.key(10), Self.key(10) + "a",
                    Self.key(11), "A:1", Self.key(12), Self.key(118), Self.key(119), Self.key(120), Self.key(121), Self.key(198),
                    Self.key(199), "K:300", Self.key(0)]
        let expected = Self.searched(keys, long: long)
        #expect(expected.filter { $0 == nil }.count == 5)
        #expect(try Self.lookUp(keys, in: test.cache.store) == expected)
        #expect(try keys.map { (key) throws(NormCacheError) in try RecordStoreTests.stored(key, in: test.cache.store) } == expected)
    }

    @Test func aKeyNotGreaterThanTheLastIsSearched() throws {
        let (test, _) = try Self.store()
        // Out of order, repeated, and back to the first key: each found as a search finds it.
        let keys = [Self.key(40), Self.key(41), Self.key(5), Self.key(5), Self.key(6), Self.key(50), Self.key(49), Self.key(0), "A:1"]
        let expected: [[UInt8]?] = [Self.bytes(40), Self.bytes(41), Self.bytes(5), Self.bytes(5), Self.bytes(6), nil, Self.bytes(49),
                                    Self.bytes(0), nil]
        #expect(try Self.lookUp(keys, in: test.cache.store) == expected)
    }

    @Test func keysInOrderFindTheRecordsOfTheWriteTheyAreLookedUpIn() throws {
        let (test, _) = try Self.store()
        let store = test.cache.store
        // Records 50 and 51 put back and 52 removed in the write, then looked up in it.
        let found = try store.write { (txn) throws(NormCacheError) -> [[UInt8]?] in
            try RecordStoreTests.setRecord(Self.key(50), [5, 0], in: txn)
            try RecordStoreTests.setRecord(Self.key(51), [5, 1], in: txn)
            _ = try Self.key(52).withUTF8Bytes { (key) throws(NormCacheError) in try txn.removeRecord(key) }
            return try Self.lookUp((48...54).map(Self.key), in: txn)
        }
        #expect(found == [Self.bytes(48), Self.bytes(49), [5, 0], [5, 1], nil, Self.bytes(53), Self.bytes(54)])
    }
}
