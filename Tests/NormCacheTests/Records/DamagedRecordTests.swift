import TestSupport
import Testing
@testable import NormCache

/// Records whose stored bytes are damaged (found by the `record` fuzz target): reads
/// answer with the damaged-record error, at once.
@Suite struct DamagedRecordTests {
    /// A QUERY_ROOT record of three fields: `a` ("x"), `item` (a reference to Item:2)
    /// and `list`, whose list header claims billions of elements in an empty body.
    static let damagedList: [UInt8] = [
        0x01, 0x03, 0x0e, 0x00, 0x00, 0x00, 0x1a, 0x00, 0x00, 0x00, 0x2e, 0x00, 0x00, 0x00, 0x01, 0x61,
        0x01, 0x98, 0xe0, 0x8b, 0xd8, 0x16, 0x03, 0x04, 0x01, 0x78, 0x04, 0x69, 0x74, 0x65, 0x6d, 0x01,
        0x98, 0xe0, 0x8b, 0xd8, 0x06, 0x08, 0x07, 0x06, 0x49, 0x74, 0x65, 0x6d, 0x3a, 0x32, 0x04, 0x6c,
        0x69, 0x73, 0x74, 0x01, 0x98, 0xe0, 0x8b, 0xd8, 0x06, 0x0c, 0x05, 0xff, 0xff, 0xff, 0x87, 0x11,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb2, 0x00, 0x03, 0x01, 0x31, 0x2d, 0x01, 0x32,
    ]

    /// Stores `bytes` as the record `key`, as they are.
    static func store(_ bytes: [UInt8], as key: String, in cache: NormalizedCache) throws {
        try cache.store.write { (txn) throws(NormCacheError) in
            try key.withUTF8Bytes { (key) throws(NormCacheError) in
                try bytes.withUnsafeBytes { raw in Result { () throws(NormCacheError) in try txn.setRecord(key, raw) } }.get()
            }
        }
    }

    @Test func aListLongerThanItsBodyIsDamagedNotEndless() throws {
        let test = try TestCache()
        try Self.store(Self.damagedList, as: "QUERY_ROOT", in: test.cache)
        let damaged = NormCacheError(.notACache, "the record 'QUERY_ROOT' in '\(test.path)' is damaged")
        let operation = try test.cache.prepare("{ a list }")
        #expect(throws: damaged) { try test.cache.read(operation) }
        #expect(throws: damaged) { try test.cache.record("QUERY_ROOT") }
    }

    /// A list of objects that claims 2^28 elements in an empty body: the read looks its
    /// records up ahead of it (`ListLookahead`) without reserving room for the count it
    /// claims, and answers with the damaged-record error, at once.
    @Test func aListOfObjectsLongerThanItsBodyReservesNothing() throws {
        let test = try TestCache()
        var bytes = Self.damagedList
        bytes.replaceSubrange(59...63, with: [0x80, 0x80, 0x80, 0x80, 0x01])  // the count, 2^28
        try Self.store(bytes, as: "QUERY_ROOT", in: test.cache)
        let operation = try test.cache.prepare("{ list { a } }")
        #expect(throws: NormCacheError(.notACache, "the record 'QUERY_ROOT' in '\(test.path)' is damaged")) {
            try test.cache.read(operation)
        }
    }

    @Test func aReferenceToAnEmptyKeyIsDamaged() throws {
        let test = try TestCache()
        var bytes = Self.damagedList
        bytes[37] = 0x02  // the value of `item`: two bytes, a reference tag and a key length of 0
        bytes[39] = 0x00
        try Self.store(bytes, as: "QUERY_ROOT", in: test.cache)
        let operation = try test.cache.prepare("{ a item { a } }")
        #expect(throws: NormCacheError(.notACache, "the record 'QUERY_ROOT' in '\(test.path)' is damaged")) {
            try test.cache.read(operation)
        }
    }
}
