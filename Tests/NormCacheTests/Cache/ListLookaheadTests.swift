import TestSupport
import Testing
@testable import NormCache

/// Long lists of references, whose records the reader looks up ahead of the element it
/// writes (`ListLookahead`): what a read returns, misses and throws is the same as one
/// element at a time, element by element, across the lookahead's start and its ring.
@Suite struct ListLookaheadTests {
    static let schema = """
    type Query { items: [Item] strict: [Item!] grid: [[Item]] }
    type Item { id: ID! n: Int }
    extend type Item @typePolicy(keyFields: "id")
    """

    /// A cache with the schema, and the JSON of item `id`.
    static func cache() throws -> TestCache {
        let test = try TestCache()
        try test.cache.loadSchema(schema)
        return test
    }

    static func item(_ id: Int) -> String { #"{"id":"\#(id)","n":\#(id * 7)}"# }

    /// 300 items (the lookahead starts once 64 records were not found again, then runs 8
    /// ahead): nulls here and there, and removed records before, across and after the
    /// lookahead's start and at the end, all read twice, element for element.
    @Test func aLongListReadsElementForElement() throws {
        let test = try Self.cache()
        let count = 300
        let isNull = { (position: Int) in position % 37 == 5 }
        let elements = (0..<count).map { isNull($0) ? "null" : Self.item($0) }
        let write = try test.cache.prepare("{ items { __typename id n } }")
        _ = try test.cache.write(write, #"{"data": {"items": [\#(elements.map { $0 == "null" ? $0 : "{\"__typename\":\"Item\"," + $0.dropFirst() }.joined(separator: ","))]}}"#)
        let removed = [3, 63, 64, 65, 66, 71, 72, 73, 80, 140, 141, 142, 143, 144, 145, 146, 147, 148, count - 1]
        for position in removed { #expect(try test.cache.remove("Item:\(position)")) }

        let read = try test.cache.prepare("{ items { id n } }")
        let data = (0..<count).map { isNull($0) || removed.contains($0) ? "null" : Self.item($0) }
        let paths = removed.map { "items.\($0)" }
        let expected = "MISS \(paths) {\"items\":[\(data.joined(separator: ","))]}"
        #expect(try test.cache.readText(read, partial: true) == expected)
        #expect(try test.cache.readText(read, partial: true) == expected)
        #expect(try test.cache.readText(read) == "MISS \(paths)")
    }

    /// A list of lists: the outer list's elements are not references (left to the
    /// reader), each inner list looks ahead on its own.
    @Test func nestedListsLookAheadEachOnTheirOwn() throws {
        let test = try Self.cache()
        let rows = (0..<30).map { row in (0..<20).map { Self.item(row * 100 + $0) } }
        let typed = rows.map { "[" + $0.map { "{\"__typename\":\"Item\"," + $0.dropFirst() }.joined(separator: ",") + "]" }
        let write = try test.cache.prepare("{ grid { __typename id n } }")
        _ = try test.cache.write(write, #"{"data": {"grid": [\#(typed.joined(separator: ","))]}}"#)
        #expect(try test.cache.remove("Item:2517"))

        let read = try test.cache.prepare("{ grid { id n } }")
        var data = rows.map { $0 }
        data[25][17] = "null"
        let expected = "MISS [\"grid.25.17\"] {\"grid\":[\(data.map { "[" + $0.joined(separator: ",") + "]" }.joined(separator: ","))]}"
        #expect(try test.cache.readText(read, partial: true) == expected)
        #expect(try test.cache.readText(read, partial: true) == expected)
    }

    /// A damaged record ahead is found by the lookahead first, but the error a read
    /// throws is the first in document order, as it is one element at a time.
    @Test func errorsComeInDocumentOrder() throws {
        let test = try Self.cache()
        let write = try test.cache.prepare("{ strict { __typename id n } }")
        let elements = (0..<100).map { "{\"__typename\":\"Item\"," + Self.item($0).dropFirst() }
        _ = try test.cache.write(write, #"{"data": {"strict": [\#(elements.joined(separator: ","))]}}"#)
        try DamagedRecordTests.store([0xff], as: "Item:93", in: test.cache)
        let read = try test.cache.prepare("{ strict { id n } }")
        let damaged = NormCacheError(.notACache, "the record 'Item:93' in '\(test.path)' is damaged")
        #expect(throws: damaged) { try test.cache.read(read) }

        // A null at 90, in a non-null position, comes before it.
        let references = (0..<100).map { $0 == 90 ? "null" : #"{"$reference": "Item:\#($0)"}"# }
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"strict": [\#(references.joined(separator: ","))]}}"#)
        #expect(throws: NormCacheError(.data, "the cache holds null at strict.90, a non-null position")) { try test.cache.read(read) }
    }
}
