import TestSupport
import Testing
@testable import NormCache

/// `invalidate` and `invalidateAll(withPrefix:)`: data marked stale without deletion —
/// a read misses it with the reason `invalidated`, a read allowing `maxStale` returns it
/// stale, a write makes it fresh again; counts, absent keys and bad arguments.
@Suite struct InvalidationTests {
    static let start: UInt64 = 1_700_000_000

    /// Pets with an operation over them, the clock at `start`.
    func pets() throws -> (TestCache, PreparedOperation, Counter) {
        let now = Counter(start: Self.start)
        let test = try TestCache(clock: { now.value })
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"pets": [{"$reference": "Pet:1"}, {"$reference": "Pet:2"}]}, "Pet:1": {"name": "Rex", "age": 3}, "Pet:2": {"name": "Tom", "age": 5}, "User:1": {"name": "Ada"}}"#)
        return (test, try test.cache.prepare("{ pets { name age } }"), now)
    }

    @Test func aFieldInvalidatedIsAMissWithItsReason() throws {
        let (test, pets, now) = try pets()
        now.value = Self.start + 10
        #expect(try test.cache.invalidate("Pet:1", field: "age") == 1)
        now.value = Self.start + 25
        let result = try test.cache.read(pets)
        #expect(result == ReadResult(status: .miss, data: nil, missing: [
            FieldReport(path: [.key("pets"), .index(0), .key("age")], reason: .invalidated, record: "Pet:1", field: "age",
                         writtenAt: Self.start, expiredAt: Self.start + 10),
        ]))
        // The data stays for a read that allows it.
        let stale = try test.cache.read(pets, options: ReadOptions(maxStale: 15))
        #expect(stale.status == .stale && stale.data == Array(#"{"pets":[{"name":"Rex","age":3},{"name":"Tom","age":5}]}"#.utf8))
        #expect(stale.stale.map(\.reason) == [.invalidated])
        #expect(try test.cache.read(pets, options: ReadOptions(maxStale: 14)).status == .miss)
        #expect(try test.cache.record("Pet:1") == #"{"age":3,"name":"Rex"}"#)
    }

    @Test func aWriteMakesAnInvalidatedFieldFreshWithoutReportingAChange() throws {
        let (test, pets, _) = try pets()
        #expect(try test.cache.invalidate("Pet:1") == 2)
        #expect(try test.cache.read(pets).missing.map(\.field) == ["name", "age"])
        #expect(try test.cache.put(json: #"{"Pet:1": {"name": "Rex", "age": 3}}"#) == [])
        #expect(try test.cache.read(pets).status == .complete)
    }

    @Test func aKeyGroupIsInvalidatedAtOnce() throws {
        let (test, pets, _) = try pets()
        #expect(try test.cache.invalidateAll(withPrefix: "Pet:") == 4)
        #expect(try test.cache.read(pets).missing.map(\.record) == ["Pet:1", "Pet:1", "Pet:2", "Pet:2"])
        #expect(try test.cache.invalidateAll(withPrefix: "Cat:") == 0)
        let user = try test.cache.prepare("fragment U on User { name }")
        #expect(try test.cache.readFragment(user, key: "User:1").status == .complete)
    }

    @Test func aFieldThatExpiredBeforeKeepsItsEarlierExpiryAndIsReportedInvalidated() throws {
        let (test, pets, now) = try pets()
        _ = try test.cache.put(json: #"{"Pet:1": {"__typename": "Pet"}, "Pet:2": {"__typename": "Pet"}}"#)
        try test.cache.configure(#"{"maxAges": {"Pet.age": 5}}"#)
        now.value = Self.start + 100
        #expect(try test.cache.invalidate("Pet:2", field: "age") == 1)
        let result = try test.cache.read(pets)
        #expect(result.missing.map(\.expiredAt) == [Self.start + 5, Self.start + 5])
        #expect(result.missing.map(\.reason) == [.stale, .invalidated])
    }

    @Test func absentKeysAndBadArguments() throws {
        let (test, _, _) = try pets()
        #expect(try test.cache.invalidate("Pet:9") == 0)
        #expect(try test.cache.invalidate("Pet:1", field: "colour") == 0)
        #expect(throws: NormCacheError(.invalidArgument, "empty record key")) { try test.cache.invalidate("") }
        #expect(throws: NormCacheError(.invalidArgument, "empty field key")) { try test.cache.invalidate("Pet:1", field: "") }
        #expect(throws: NormCacheError(.invalidArgument, "empty prefix")) { try test.cache.invalidateAll(withPrefix: "") }
        test.cache.close()
        #expect(throws: NormCacheError.self) { try test.cache.invalidate("Pet:1") }
    }
}
