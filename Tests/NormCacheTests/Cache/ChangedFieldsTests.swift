import Glibc
import TestSupport
import Testing
@testable import NormCache

/// The changed fields a write returns: names in order, as `String`s and as the C
/// interface's JSON array, whichever way they were made (by a write, one pass over its
/// changes, or from names), escaped where JSON needs it and equal when their names are.
@Suite struct ChangedFieldsTests {
    /// The changed fields of `pairs` (record key, field key), as a write makes them.
    static func built(_ pairs: [(String, String)]) -> ChangedFields {
        var storage: [UInt8] = []
        var parts: [(record: Range<Int>, field: Range<Int>)] = []
        for (record, field) in pairs {
            let recordStart = storage.count
            storage += Array(record.utf8)
            let fieldStart = storage.count
            storage += Array(field.utf8)
            parts.append((recordStart..<fieldStart, fieldStart..<storage.count))
        }
        return storage.withUnsafeBytes { bytes in
            ChangedFields(count: parts.count, bytes: storage.count + parts.count) { index in
                (UnsafeRawBufferPointer(rebasing: bytes[parts[index].record]), UnsafeRawBufferPointer(rebasing: bytes[parts[index].field]))
            }
        }
    }

    /// The C interface's JSON array of `changed` (its block NUL-terminated, as the C
    /// interface promises).
    static func json(_ changed: ChangedFields) throws -> String {
        let block = try changed.jsonBlock()
        defer { free(block.start) }
        #expect(block.start.load(fromByteOffset: block.count, as: UInt8.self) == 0)
        return String(decoding: UnsafeRawBufferPointer(start: block.start, count: block.count), as: UTF8.self)
    }

    @Test func plainNames() throws {
        let changed = Self.built([("Pet:1", "name"), ("Pet:1", "age")])
        #expect(Array(changed) == ["Pet:1.name", "Pet:1.age"])
        #expect(try Self.json(changed) == #"["Pet:1.name","Pet:1.age"]"#)
        #expect(changed == ["Pet:1.name", "Pet:1.age"])
        #expect(changed.hashValue == (["Pet:1.name", "Pet:1.age"] as ChangedFields).hashValue)
        #expect(changed.description == #"["Pet:1.name", "Pet:1.age"]"#)
    }

    @Test func none() throws {
        #expect(Array(Self.built([])).isEmpty)
        #expect(try Self.json(Self.built([])) == "[]")
        #expect(try Self.json(ChangedFields()) == "[]")
        #expect(Self.built([]) == ChangedFields())
    }

    /// Record and field keys of every length up to 20, each byte distinct from its
    /// neighbours, so that a copy of the wrong length or from the wrong place shows.
    @Test func keysOfEveryLengthAreCopiedWhole() throws {
        let key = { (length: Int, first: Int) in String((0..<length).map { Character(UnicodeScalar(UInt8(0x41 + (first + $0 * 7) % 26))) }) }
        let pairs = (0...20).flatMap { recordLength in (0...20).map { (key(recordLength, recordLength), key($0, 3 + $0)) } }
        let names = pairs.map { "\($0.0).\($0.1)" }
        let changed = Self.built(pairs)
        #expect(Array(changed) == names)
        #expect(try Self.json(changed) == "[" + names.map { "\"\($0)\"" }.joined(separator: ",") + "]")
    }

    /// Quotes, backslashes, control characters, non-ASCII and empty keys, in the record
    /// key and in the field key, before and after plain names.
    @Test func namesThatNeedEscapes() throws {
        let pairs = [("Pet:1", "name"), ("Note:\"q\"", "a\\b"), ("Line:1", "text\n\t\u{1}"), ("Café:é", ""), ("", "x"),
                     ("Pet:2", "owner({\"id\":\"3\"})")]
        let names = pairs.map { "\($0.0).\($0.1)" }
        let changed = Self.built(pairs)
        #expect(Array(changed) == names)
        #expect(changed == ChangedFields(names))
        #expect(changed.hashValue == ChangedFields(names).hashValue)
        #expect(try Self.json(changed) == #"["Pet:1.name","Note:\"q\".a\\b","Line:1.text\n\t\u0001","Café:é.",".x","Pet:2.owner({\"id\":\"3\"})"]"#)
        #expect(try Self.json(ChangedFields(names)) == Self.json(changed))
    }

    /// A hundred thousand names (1.2 MB) stay whole while held, whatever later writes
    /// allocate and free; another list of the same names is equal, with the same hash.
    @Test func aLargeListOutlivesLaterWrites() throws {
        let test = try TestCache()
        func records(_ value: Int) -> String {
            "{" + (0..<20_000).map { #""R:\#($0)": {"a": \#(value), "b": \#(value), "c": \#(value), "d": \#(value), "e": \#(value)}"# }
                .joined(separator: ",") + "}"
        }
        let first = try test.cache.put(json: records(1))
        let json = try Self.json(first)
        #expect(first.count == 100_000)
        for value in 2...4 { #expect(try test.cache.put(json: records(value)).count == 100_000) }
        #expect(first[0] == "R:0.a" && first[1] == "R:0.b" && first[99_999] == "R:19999.e")
        #expect(try Self.json(first) == json)
        #expect(json.hasPrefix(#"["R:0.a","R:0.b","#) && json.hasSuffix(#","R:19999.e"]"#))
        let again = try test.cache.put(json: records(5))
        #expect(again == first && again.hashValue == first.hashValue)
        #expect(try test.cache.put(json: #"{"R:0": {"a": 6}}"#) != first)
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

    /// A record given `repeats` times takes that many input places for one changed field;
    /// ten records in falling key order follow. With 1,058 repeats the last place (1,067)
    /// is below the bound of the table of places (4 × 11 changes + 1,024), with 1,059 it
    /// is not and the changes are sorted: the same order either way.
    @Test func theTableOfPlacesAndTheSortAgree() throws {
        for repeats in [1058, 1059] {
            let test = try TestCache()
            let hot = (0..<repeats).map { #""Hot:1": {"n": \#($0)}"# }
            let others = (0..<10).map { #""R:\#(9 - $0)": {"v": 1}"# }
            let changed = try test.cache.put(json: "{" + (hot + others).joined(separator: ",") + "}")
            #expect(Array(changed) == ["Hot:1.n"] + (0..<10).map { "R:\(9 - $0).v" })
            #expect(try test.cache.record("Hot:1") == #"{"n":\#(repeats - 1)}"#)
        }
    }

    /// A put of records whose keys need escapes reports them by name, and as JSON.
    @Test func aPutReportsEscapedKeys() throws {
        let test = try TestCache()
        let changed = try test.cache.put(json: #"{"Note:\"q\"": {"a\\b": 1, "plain": 2}, "Pet:1": {"name": "Rex"}}"#)
        #expect(Array(changed) == ["Note:\"q\".a\\b", "Note:\"q\".plain", "Pet:1.name"])
        #expect(try Self.json(changed) == #"["Note:\"q\".a\\b","Note:\"q\".plain","Pet:1.name"]"#)
    }
}
