import TestSupport
import Testing
@testable import NormCache

/// Long lists of references, whose records the reader looks up in key order before it
/// writes their elements (`ListLookahead`): what a read returns, misses and throws is the
/// same as one element at a time, element by element, with repeats, removed and damaged
/// records, and elements that are not references.
@Suite struct ListLookaheadTests {
    static let schema = """
    type Query { items: [Item] strict: [Item!] grid: [[Item]] notes: [Note] }
    type Item { id: ID! n: Int }
    type Note { text: String }
    extend type Item @typePolicy(keyFields: "id")
    """

    /// A cache with the schema, and the JSON of item `id`.
    static func cache() throws -> TestCache {
        let test = try TestCache()
        try test.cache.loadSchema(schema)
        return test
    }

    static func item(_ id: Int) -> String { #"{"id":"\#(id)","n":\#(id * 7)}"# }

    /// 300 items: nulls here and there, and removed records at the start, in runs and
    /// at the end, read element for element every time.
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
        for _ in 0..<3 {
            #expect(try test.cache.readText(read, partial: true) == expected)
        }
        #expect(try test.cache.readText(read) == "MISS \(paths)")
    }

    /// A list of lists: the outer list's elements are not references (left to the
    /// reader), each inner list of 70 looks ahead on its own.
    @Test func nestedListsLookAheadEachOnTheirOwn() throws {
        let test = try Self.cache()
        let rows = (0..<30).map { row in (0..<70).map { Self.item(row * 100 + $0) } }
        let typed = rows.map { "[" + $0.map { "{\"__typename\":\"Item\"," + $0.dropFirst() }.joined(separator: ",") + "]" }
        let write = try test.cache.prepare("{ grid { __typename id n } }")
        _ = try test.cache.write(write, #"{"data": {"grid": [\#(typed.joined(separator: ","))]}}"#)
        #expect(try test.cache.remove("Item:2517"))

        let read = try test.cache.prepare("{ grid { id n } }")
        var data = rows.map { $0 }
        data[25][17] = "null"
        let expected = "MISS [\"grid.25.17\"] {\"grid\":[\(data.map { "[" + $0.joined(separator: ",") + "]" }.joined(separator: ","))]}"
        for _ in 0..<3 {
            #expect(try test.cache.readText(read, partial: true) == expected)
        }
    }

    /// 200 elements that refer to 11 records again and again (looked up once each, in key
    /// order), one of them removed: every repeat reads as its record, every repeat of
    /// the removed one is missing at its own path.
    @Test func repeatsReadAsTheirRecordEveryTime() throws {
        let test = try Self.cache()
        let count = 200
        let ids = (0..<count).map { ($0 * 3) % 11 }
        let records = (0..<11).map { #""Item:\#($0)": {"id": "\#($0)", "n": \#($0 * 7)}"# }
        let references = ids.map { #"{"$reference": "Item:\#($0)"}"# }
        _ = try test.cache.put(json: "{\(records.joined(separator: ",")), \"QUERY_ROOT\": {\"items\": [\(references.joined(separator: ","))]}}")
        #expect(try test.cache.remove("Item:4"))

        let read = try test.cache.prepare("{ items { id n } }")
        let data = ids.map { $0 == 4 ? "null" : Self.item($0) }
        let paths = ids.indices.filter { ids[$0] == 4 }.map { "items.\($0)" }
        #expect(paths.count == 18)
        let expected = "MISS \(paths) {\"items\":[\(data.joined(separator: ","))]}"
        #expect(try test.cache.readText(read, partial: true) == expected)
        #expect(try test.cache.readText(read, partial: true) == expected)
    }

    /// 100 objects kept inside the root's record (a type without key fields): no element
    /// is a reference, and the list reads as written.
    @Test func aLongListOfObjectsWithoutKeysReadsAsWritten() throws {
        let test = try Self.cache()
        let notes = (0..<100).map { #"{"text":"note \#($0)"}"# }
        let write = try test.cache.prepare("{ notes { text } }")
        _ = try test.cache.write(write, #"{"data": {"notes": [\#(notes.joined(separator: ","))]}}"#)
        #expect(try test.cache.readText(write) == #"{"notes":[\#(notes.joined(separator: ","))]}"#)
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
        for _ in 0..<3 {
            #expect(throws: damaged) { try test.cache.read(read) }
        }

        // A null at 90, in a non-null position, comes before it.
        let references = (0..<100).map { $0 == 90 ? "null" : #"{"$reference": "Item:\#($0)"}"# }
        _ = try test.cache.put(json: #"{"QUERY_ROOT": {"strict": [\#(references.joined(separator: ","))]}}"#)
        #expect(throws: NormCacheError(.data, "the cache holds null at strict.90, a non-null position")) { try test.cache.read(read) }
    }

    /// 5,000 elements (looked up in key order), put as a record so that the list holds
    /// every kind of element: references in an order unlike their keys', to records
    /// present and removed, nulls, a number and a string where objects belong.
    @Test func thousandsOfElementsReadInKeyOrderElementForElement() throws {
        let test = try Self.cache()
        let count = 5_000
        let ids = (0..<count).map { ($0 * 7_919) % count }
        let removed: Set = [0, 1, 2, 63, 64, 65, 1_000, 1_001, 4_095, 4_096, 4_999]
        var elements: [String] = [], data: [String] = [], paths: [String] = []
        var records: [String] = []
        for position in 0..<count {
            let id = ids[position]
            if position % 37 == 5 {
                elements.append("null")
                data.append("null")
                continue
            }
            if position == 700 || position == 2_800 {
                elements.append(position == 700 ? "7" : #""x""#)
                data.append("null")
                paths.append("items.\(position)")
                continue
            }
            elements.append(#"{"$reference": "Item:\#(id)"}"#)
            if removed.contains(position) {
                data.append("null")
                paths.append("items.\(position)")
            } else {
                records.append(#""Item:\#(id)": {"id": "\#(id)", "n": \#(id * 7)}"#)
                data.append(Self.item(id))
            }
        }
        _ = try test.cache.put(json: "{\(records.joined(separator: ",")), \"QUERY_ROOT\": {\"items\": [\(elements.joined(separator: ","))]}}")

        let read = try test.cache.prepare("{ items { id n } }")
        let expected = "MISS \(paths) {\"items\":[\(data.joined(separator: ","))]}"
        #expect(try test.cache.readText(read, partial: true) == expected)
        #expect(try test.cache.readText(read, partial: true) == expected)
    }

    /// In key order too, the error a read throws is the first in document order.
    @Test func thousandsOfElementsThrowInDocumentOrder() throws {
        let test = try Self.cache()
        let count = 5_000
        let records = (0..<count).map { #""Item:\#($0)": {"id": "\#($0)", "n": \#($0 * 7)}"# }
        let references = (0..<count).map { #"{"$reference": "Item:\#($0)"}"# }
        _ = try test.cache.put(json: "{\(records.joined(separator: ",")), \"QUERY_ROOT\": {\"strict\": [\(references.joined(separator: ","))]}}")
        try DamagedRecordTests.store([0xff], as: "Item:4500", in: test.cache)
        let read = try test.cache.prepare("{ strict { id n } }")
        #expect(throws: NormCacheError(.notACache, "the record 'Item:4500' in '\(test.path)' is damaged")) { try test.cache.read(read) }

        var nulled = references
        nulled[4_400] = "null"
        _ = try test.cache.put(json: "{\"QUERY_ROOT\": {\"strict\": [\(nulled.joined(separator: ","))]}}")
        #expect(throws: NormCacheError(.data, "the cache holds null at strict.4400, a non-null position")) { try test.cache.read(read) }
    }

    /// The elements' bytes of a list of references to `Item:0` to `Item:<count - 1>`.
    static func references(_ count: Int) -> [UInt8] {
        var bytes = ByteBuffer()
        for id in 0..<count { Array("Item:\(id)".utf8).withUnsafeBytes { bytes.appendTagged(FieldValue.Tag.reference.rawValue, $0) } }
        return Array(bytes.bytes)
    }

    /// What `ListLookahead.start` found for the first element of a list whose record says
    /// it has `claimed` elements, with these `elements` bytes, read in `test`'s cache.
    static func firstFound(claimed: Int, elements: [UInt8], in test: TestCache) throws -> ListLookahead.Found {
        try test.cache.store.read { (txn) throws(NormCacheError) in
            var lookup = RecordLookup(txn)
            var interrupt = InterruptCheck()
            var lookahead = ListLookahead()
            return try elements.withBytes { (bytes) throws(NormCacheError) in
                try lookahead.start(ByteReader(bytes), count: claimed, lookup: &lookup, interrupt: &interrupt)
                return lookahead.isActive ? lookahead.found(at: 0) : .notLookedUp
            }
        }
    }

    /// A list of 5,000 references is looked up in key order as it starts; one whose
    /// record claims 5,000 elements in the bytes of 100 (damaged) is not, and reserves
    /// nothing by its count: the reader reads it element by element and meets the damage.
    @Test func onlyAListWhoseBytesHoldItsCountIsLookedUpInKeyOrder() throws {
        let test = try Self.cache()
        let write = try test.cache.prepare("{ items { __typename id n } }")
        _ = try test.cache.write(write, #"{"data": {"items": [{"__typename":"Item","id":"0","n":0}]}}"#)
        let count = 5_000
        guard case .record(let record) = try Self.firstFound(claimed: count, elements: Self.references(count), in: test) else {
            Issue.record("the first element of a list of \(count) was not looked up in key order")
            return
        }
        #expect(Array(record) == (try test.cache.store.read { (txn) throws(NormCacheError) in
            try Array("Item:0".utf8).withBytes { (key) throws(NormCacheError) in try txn.record(key).map(Array.init) }
        }))
        guard case .notLookedUp = try Self.firstFound(claimed: count, elements: Self.references(100), in: test) else {
            Issue.record("a list claiming \(count) elements in the bytes of 100 was looked up in key order")
            return
        }
    }
}
