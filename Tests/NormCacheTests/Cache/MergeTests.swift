import TestSupport
import Testing
@testable import NormCache

/// Field-level merge as DESIGN.md specifies it, through `put`, with exact changed keys
/// and exact stored records.
@Suite struct MergeTests {
    @Test func firstWriteReportsEveryFieldInInputOrder() throws {
        let test = try TestCache()
        let changed = try test.cache.put(json: #"{"Droid:2001": {"name": "R2-D2", "friends": [{"$reference": "Human:1000"}, null]}}"#)
        #expect(changed == ["Droid:2001.name", "Droid:2001.friends"])
        #expect(try test.cache.record("Droid:2001") == #"{"friends":[{"$reference":"Human:1000"},null],"name":"R2-D2"}"#)
    }

    @Test func identicalRewriteReportsNothing() throws {
        let test = try TestCache()
        let records = #"{"Human:1000": {"name": "Luke", "height": 1.72, "appearsIn": ["NEWHOPE", "EMPIRE"]}, "Droid:2001": {"name": "R2-D2"}}"#
        #expect(try test.cache.put(json: records).count == 4)
        #expect(try test.cache.put(json: records) == [])
    }

    @Test func aWriteThatDoesNotReportChangesStoresTheSameMerge() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"Human:1000": {"name": "Luke", "height": 1.72}}"#)
        let changed = try Array(#"{"Human:1000": {"name": "Luke Skywalker", "mass": 77}}"#.utf8).withUnsafeBytes {
            try test.cache.put(json: $0, reportingChanges: false)
        }
        #expect(changed == [])
        #expect(try test.cache.record("Human:1000") == #"{"height":1.72,"mass":77,"name":"Luke Skywalker"}"#)
    }

    @Test func lastWriteWinsAbsentFieldsStayListsAreReplacedWhole() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"Human:1000": {"name": "Luke", "height": 1.72, "appearsIn": ["NEWHOPE", "EMPIRE", "JEDI"]}}"#)
        let changed = try test.cache.put(json: #"{"Human:1000": {"name": "Luke Skywalker", "appearsIn": ["JEDI"], "height": 1.72}}"#)
        #expect(changed == ["Human:1000.name", "Human:1000.appearsIn"])
        _ = try test.cache.put(json: #"{"Human:1000": {"mass": 77}}"#)
        #expect(try test.cache.record("Human:1000") == #"{"appearsIn":["JEDI"],"height":1.72,"mass":77,"name":"Luke Skywalker"}"#)
    }

    @Test func aStoredNullIsAValueAndChangesLikeOne() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"Human:1": {"mass": 77}}"#)
        #expect(try test.cache.put(json: #"{"Human:1": {"mass": null}}"#) == ["Human:1.mass"])
        #expect(try test.cache.put(json: #"{"Human:1": {"mass": null}}"#) == [])
        #expect(try test.cache.record("Human:1") == #"{"mass":null}"#)
    }

    @Test func aKeyRepeatedInOneInputMergesInOrderAndReportsOnce() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"x": 0, "y": 0}}"#)
        let changed = try test.cache.put(json: #"{"A:1": {"x": 1}, "B:1": {"z": 1}, "A:1": {"x": 0, "y": 2, "x": 3}}"#)
        #expect(changed == ["A:1.x", "B:1.z", "A:1.y"])
        #expect(try test.cache.record("A:1") == #"{"x":3,"y":2}"#)
        #expect(try test.cache.put(json: #"{"A:1": {"x": 5}, "A:1": {"x": 3}}"#) == [])
    }

    @Test func leafValuesRoundTripExactly() throws {
        let test = try TestCache()
        let record = #"{"big":12345678901234567890,"e":-1.5E+300,"one":1.0,"s":"caf\u00e9 \"q\" \\ \n\t\u0001 😀","scalar":{"b":[1,{"c":null}],"a":true},"zero":-0}"#
        _ = try test.cache.put(json: #"{"X:1": "# + record + "}")
        #expect(try test.cache.record("X:1") == #"{"big":12345678901234567890,"e":-1.5E+300,"one":1.0,"s":"café \"q\" \\ \n\t\u0001 😀","scalar":{"b":[1,{"c":null}],"a":true},"zero":-0}"#)
    }

    @Test func changingOneListElementOrNumberTextIsAChange() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"A:1": {"l": [1, 2, 3], "n": 1}}"#)
        #expect(try test.cache.put(json: #"{"A:1": {"l": [1, 2, 4], "n": 1.0}}"#) == ["A:1.l", "A:1.n"])
        #expect(try test.cache.put(json: #"{"A:1": {"l": [{"$reference": "B:1"}]}}"#) == ["A:1.l"])
        #expect(try test.cache.put(json: #"{"A:1": {"l": [{"$reference": "B:2"}]}}"#) == ["A:1.l"])
    }

    @Test func emptyRecordIsStoredAndReportsNothing() throws {
        let test = try TestCache()
        #expect(try test.cache.put(json: #"{"A:1": {}}"#) == [])
        #expect(try test.cache.record("A:1") == "{}")
        #expect(try test.cache.stats().records == 1)
    }

    @Test func writtenAtIsStampedPerFieldAndRefreshedByARewrite() throws {
        let now = Counter(start: 1_000)
        let test = try TestCache(clock: { now.value })
        _ = try test.cache.put(json: #"{"A:1": {"x": 1, "y": 2}}"#)
        now.value = 2_000
        #expect(try test.cache.put(json: #"{"A:1": {"y": 2}}"#) == [])
        let times = try test.cache.store.read { (txn) throws(NormCacheError) -> [UInt64] in
            guard let stored = try "A:1".withUTF8Bytes({ (key) throws(NormCacheError) in try txn.record(key) }),
                  let view = RecordView(stored) else { return [] }
            return (0..<view.count).compactMap { view.field(at: $0)?.writtenAt }
        }
        #expect(times == [1_000, 2_000])
    }
}

/// A value shared with a clock closure.
final class Counter: @unchecked Sendable {
    var value: UInt64
    init(start: UInt64) { value = start }
}
