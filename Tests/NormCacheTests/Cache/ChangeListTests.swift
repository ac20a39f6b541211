import TestSupport
import Testing
@testable import NormCache

/// The changed fields of a write, noted in key order and given back in input order,
/// whether their places go through the table of places or are sorted.
@Suite struct ChangeListTests {
    /// A field at input place `order` whose key is `keyCount` bytes long.
    static func field(order: UInt32, keyCount: UInt32) -> RecordBatch.Field {
        RecordBatch.Field(key: nil, keyCount: keyCount, valueStart: 0, valueCount: 0, order: order)
    }

    /// The changes of `list` as (place, record, field) triples.
    static func triples(_ list: borrowing ChangeList) -> [[Int]] {
        (0..<list.count).map { [Int(list[$0].order), Int(list[$0].record), Int(list[$0].field)] }
    }

    /// Ten changes noted out of order, the last place on each side of the bound between
    /// the table (1,063 places and fewer: below 4 × 10 + 1,024) and the sort: the same
    /// input order.
    @Test func bothWaysGiveInputOrder() throws {
        for lastPlace: UInt32 in [1062, 1063, 1064, 50_000] {
            let places: [UInt32] = [7, lastPlace, 0, 512, 3, 1000, 4, 999, 60, 61]
            var list = try ChangeList(capacity: places.count)
            for (index, place) in places.enumerated() {
                list.note(Self.field(order: place, keyCount: UInt32(index)), at: UInt32(100 + index), record: Int32(index), keyCount: 5)
            }
            #expect(list.count == 10)
            #expect(list.nameBytes == 10 * 6 + 45)
            try list.putInInputOrder()
            #expect(Self.triples(list) == [[0, 2, 102], [3, 4, 104], [4, 6, 106], [7, 0, 100], [60, 8, 108], [61, 9, 109],
                                           [512, 3, 103], [999, 7, 107], [1000, 5, 105], [Int(lastPlace), 1, 101]])
        }
    }

    @Test func noChanges() throws {
        var list = try ChangeList(capacity: 0)
        try list.putInInputOrder()
        #expect(list.count == 0 && list.nameBytes == 0)
    }

    /// Every place of a dense run changed, noted backwards.
    @Test func everyPlaceChanged() throws {
        var list = try ChangeList(capacity: 5000)
        for place in (0..<5000).reversed() {
            list.note(Self.field(order: UInt32(place), keyCount: 1), at: UInt32(place), record: Int32(place / 10), keyCount: 3)
        }
        try list.putInInputOrder()
        #expect(Self.triples(list) == (0..<5000).map { [$0, $0 / 10, $0] })
        #expect(list.nameBytes == 5000 * 5)
    }

    /// Through writes: records out of key order, one given again (its fields keep the
    /// place of their first appearance), then a rewrite that changes a few fields.
    @Test func aPutNamesItsChangesInInputOrder() throws {
        let test = try TestCache()
        let changed = try test.cache.put(json: #"{"Pet:2": {"b": 1, "a": 2}, "Pet:10": {"z": 1}, "Owner:1": {"pet": {"$reference": "Pet:2"}}, "Pet:2": {"c": 3, "a": 4}}"#)
        #expect(changed == ["Pet:2.b", "Pet:2.a", "Pet:10.z", "Owner:1.pet", "Pet:2.c"])
        #expect(try test.cache.record("Pet:2") == #"{"a":4,"b":1,"c":3}"#)
        let again = try test.cache.put(json: #"{"Pet:2": {"b": 1, "a": 5}, "Pet:10": {"z": 2, "y": 0}, "Owner:1": {"pet": {"$reference": "Pet:2"}}}"#)
        #expect(again == ["Pet:2.a", "Pet:10.z", "Pet:10.y"])
    }
}
