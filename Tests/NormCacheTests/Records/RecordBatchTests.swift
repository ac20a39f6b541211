import Glibc
import TestSupport
import Testing
@testable import NormCache

/// The write batch: records given again merge as they come (a few fields) or once at
/// the end (many), later values win, fields keep the input place of their first
/// appearance; records reach the store in key order, appended past its last key.
@Suite struct RecordBatchTests {
    @Test func aRecordGivenManyTimesWithEverMoreFieldsMergesOnce() throws {
        let test = try TestCache()
        // 200 appearances of A:1, each with a field of its own and x again: past the
        // eager limit the runs wait for `finish`.
        var parts: [String] = []
        for index in 0..<200 { parts.append(#""A:1": {"f\#(index)": \#(index), "x": \#(index)}"#) }
        parts.insert(#""B:1": {"y": 1}"#, at: 100)
        let changed = try test.cache.put(json: "{" + parts.joined(separator: ", ") + "}")
        let expected = ["A:1.f0", "A:1.x"] + (1..<100).map { "A:1.f\($0)" } + ["B:1.y"] + (100..<200).map { "A:1.f\($0)" }
        #expect(Array(changed) == expected)
        let record = try #require(try test.cache.record("A:1"))
        #expect(record.contains(#""x":199"#))
        #expect(record.contains(#""f0":0,"f1":1,"f10":10"#))
        #expect(try test.cache.put(json: "{" + parts.joined(separator: ", ") + "}") == [])
    }

    @Test func aFewChangesAmongManyFieldsComeInInputOrder() throws {
        // 3,000 fields, of which three change: their places in the input are too sparse
        // for the table of places (`Writer.names`), and are sorted instead.
        let test = try TestCache()
        func records(changing changed: Set<Int>) -> String {
            "{" + (0..<1000).map { (id: Int) -> String in
                let fields = (0..<3).map { (field: Int) -> String in
                    let value = changed.contains(id * 3 + field) ? "changed" : "v"
                    return #""f\#(field)": "\#(value)""#
                }
                return #""R:\#(999 - id)": {"# + fields.joined(separator: ", ") + "}"
            }.joined(separator: ", ") + "}"
        }
        #expect(try test.cache.put(json: records(changing: [])).count == 3000)
        #expect(try test.cache.put(json: records(changing: [2999, 5, 1500])) == ["R:998.f2", "R:499.f0", "R:0.f2"])
    }

    @Test func theSameFieldsAgainReplaceTheirValuesInPlace() throws {
        let test = try TestCache()
        let changed = try test.cache.put(json: #"{"U:1": {"n": "a", "m": 1}, "P:1": {"u": {"$reference": "U:1"}}, "U:1": {"m": 2, "n": "b"}}"#)
        #expect(changed == ["U:1.n", "U:1.m", "P:1.u"])
        #expect(try test.cache.record("U:1") == #"{"m":2,"n":"b"}"#)
    }

    @Test func escapedRecordAndReferenceKeysAreDecodedAndPlainOnesTakenAsTheyStand() throws {
        // Plain keys are read in place from the input, escaped ones decoded first: both
        // store the same bytes.
        let test = try TestCache()
        let changed = try test.cache.put(json: #"{"A\u003a1": {"r": {"$reference": "B\u003a\"x"}, "s": {"$reference": "B:2"}}, "B:2": {"n": 1}}"#)
        #expect(changed == ["A:1.r", "A:1.s", "B:2.n"])
        #expect(try test.cache.record("A:1") == #"{"r":{"$reference":"B:\"x"},"s":{"$reference":"B:2"}}"#)
        #expect(try test.cache.put(json: #"{"A:1": {"r": {"$reference": "B:\"x"}, "s": {"$reference": "B\u003a2"}}}"#) == [])
    }

    @Test func everyKindOfValueIsStoredAsGiven() throws {
        // Scalars and lists of them take the encoder's short path, literals and the rest
        // the full one; an escaped "$reference" member is a reference too, and a member
        // of the same length that is not one leaves a plain object. The records come in
        // key order, which the merge takes without a sort.
        let test = try TestCache()
        let changed = try test.cache.put(json: #"""
            {"A:1": {"n": -1.5e3, "s": "plain", "e": "tab\tquote\"", "t": true, "f": false, "z": null,
                     "l": [1, "two"], "ll": [[1], [true, null]], "o": {"k": [false]}},
             "A:2": {"r": {"\u0024reference": "B:1"}, "p": {"$referencf": "B:1"}, "q": {"$reference\u0000": "B:1"}}}
            """#)
        #expect(changed == ["A:1.n", "A:1.s", "A:1.e", "A:1.t", "A:1.f", "A:1.z", "A:1.l", "A:1.ll", "A:1.o", "A:2.r", "A:2.p", "A:2.q"])
        #expect(try test.cache.record("A:1")
            == #"{"e":"tab\tquote\"","f":false,"l":[1,"two"],"ll":[[1],[true,null]],"n":-1.5e3,"o":{"k":[false]},"s":"plain","t":true,"z":null}"#)
        #expect(try test.cache.record("A:2") == #"{"p":{"$referencf":"B:1"},"q":{"$reference\u0000":"B:1"},"r":{"$reference":"B:1"}}"#)
        #expect(throws: NormCacheError(.json, #"JSON error at byte 14: malformed reference in field 'r' of record 'A:1': a reference is an object whose only member is "$reference" with a string value"#)) {
            _ = try test.cache.put(json: #"{"A:1": {"r": {"\u0024reference": "B:1", "x": 1}}}"#)
        }
    }

    @Test func anEmptyReferenceKeyIsRefusedNamingTheDecodedFieldAndRecordKey() throws {
        let test = try TestCache()
        for (records, message) in [
            (#"{"A\u003a1": {"r": {"$reference": ""}}}"#, #"JSON error at byte 35: empty record key in a reference in field 'r' of record 'A:1'"#),
            // A field name with escapes is named decoded too.
            (#"{"A:1": {"\u0072": {"$reference": ""}}}"#, #"JSON error at byte 35: empty record key in a reference in field 'r' of record 'A:1'"#),
            (#"{"A:1": {"r": [{"$reference": "B:1"}, {"$reference": ""}]}}"#,
             #"JSON error at byte 54: empty record key in a reference in field 'r' of record 'A:1'"#),
            (#"{"A:1": {"r": {"$reference": "B:1", "x": 1}}}"#,
             #"JSON error at byte 14: malformed reference in field 'r' of record 'A:1': a reference is an object whose only member is "$reference" with a string value"#),
        ] {
            #expect(throws: NormCacheError(.json, message)) { _ = try test.cache.put(json: records) }
        }
        #expect(try test.cache.keys(withPrefix: "") == [])
    }

    @Test func keysPastTheLastStoredOneAreAppendedAndTheRestInserted() throws {
        let test = try TestCache()
        _ = try test.cache.put(json: #"{"M:5": {"v": 5}, "M:7": {"v": 7}}"#)
        // Below, between, equal to and above the stored keys, in one write.
        let changed = try test.cache.put(json: #"{"Z:1": {"v": 1}, "A:1": {"v": 1}, "M:6": {"v": 6}, "M:7": {"v": 8}, "M:8": {"v": 8}}"#)
        #expect(changed == ["Z:1.v", "A:1.v", "M:6.v", "M:7.v", "M:8.v"])
        #expect(try test.cache.keys(withPrefix: "") == ["A:1", "M:5", "M:6", "M:7", "M:8", "Z:1"])
        #expect(try test.cache.record("M:7") == #"{"v":8}"#)
        #expect(try test.cache.record("M:5") == #"{"v":5}"#)
    }

    @Test func longKeysMixWithAppendedOnes() throws {
        let test = try TestCache()
        let long = "L:" + String(repeating: "k", count: 700)
        _ = try test.cache.put(json: #"{"A:1": {"v": 1}}"#)
        let changed = try test.cache.put(json: #"{"\#(long)": {"v": 2}, "B:1": {"v": 3}, "\#(long)x": {"v": 4}}"#)
        #expect(changed == ["\(long).v", "B:1.v", "\(long)x.v"])
        #expect(try test.cache.record(long) == #"{"v":2}"#)
        #expect(try test.cache.record(long + "x") == #"{"v":4}"#)
        #expect(try test.cache.put(json: #"{"\#(long)": {"v": 5}}"#) == ["\(long).v"])
        #expect(try test.cache.keys(withPrefix: "") == ["A:1", "B:1", long, long + "x"])
    }

    @Test func recordsGivenAgainAfterTheIndexHasGrownAreFoundAndMerged() throws {
        let test = try TestCache()
        // 40,000 keys grow the batch's index from 64 slots eleven times; each key then
        // comes again, in reverse order, with a new value and a field of its own.
        let count = 40_000
        var parts = (0..<count).map { #""R:\#($0)": {"v": \#($0)}"# }
        parts += (0..<count).reversed().map { #""R:\#($0)": {"v": -\#($0), "w": true}"# }
        let changed = try test.cache.put(json: "{" + parts.joined(separator: ", ") + "}")
        #expect(changed.count == 2 * count)
        #expect(Array(changed.prefix(2)) == ["R:0.v", "R:1.v"])
        #expect(Array(changed.suffix(2)) == ["R:1.w", "R:0.w"])
        #expect(try test.cache.keys(withPrefix: "R:").count == count)
        #expect(try test.cache.record("R:0") == #"{"v":-0,"w":true}"#)
        #expect(try test.cache.record("R:39999") == #"{"v":-39999,"w":true}"#)
        #expect(try test.cache.record("R:20000") == #"{"v":-20000,"w":true}"#)
    }

    @Test func recordsGivenAgainAcrossTheLookupGroupsMergeAsIfOneByOne() throws {
        // A batch of more than `groupingThreshold` records looks them up a group at a time
        // (`PendingRecords`): a record given again in its own group, in the next one, many
        // groups later or from before the batch began grouping merges as if each were
        // looked up as it came. 300 records over 23 keys, then the threshold's worth of
        // others, then 300 more over the same keys: each the key's fields again (new
        // values in place), a field more (merged), a member given twice (the later
        // value, the first place), or, for Big:1, 70 fields of their own (merged at
        // `finish`). The batch must equal a plain model of those rules.
        var model: [(key: String, fields: [(name: String, value: Int, order: Int)])] = []
        var places: [String: Int] = [:]
        var parts: [String] = []
        var order = 0
        var state: UInt32 = 12_345
        func give(_ key: String, _ members: [(String, Int)]) {
            parts.append("\"\(key)\": {" + members.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
            let record = places[key] ?? model.count
            if record == model.count {
                places[key] = record
                model.append((key, []))
            }
            for (name, value) in members {
                if let field = model[record].fields.firstIndex(where: { $0.name == name }) {
                    model[record].fields[field].value = value
                } else {
                    model[record].fields.append((name, value, order))
                }
                order += 1
            }
        }
        func giveMixed(_ positions: Range<Int>) {
            for position in positions {
                state = state &* 1_103_515_245 &+ 12_345
                let pick = Int(state >> 16) % 23
                switch (pick, position % 4) {
                case (0, _): give("Big:1", (0..<70).map { ("f\(position)x\($0)", $0) })
                case (_, 0): give("R:\(pick)", [("a", position), ("b", position)])
                case (_, 1): give("R:\(pick)", [("a", position), ("c\(position % 5)", position)])
                case (_, 2): give("R:\(pick)", [("b", position), ("a", position), ("b", -position)])
                default: give("R:\(pick)", [("a", position)])
                }
            }
        }
        giveMixed(0..<300)
        for filler in 0..<RecordBatch.groupingThreshold { give("F:\(filler)", [("v", filler)]) }
        giveMixed(300..<600)
        #expect(model.count == 23 + RecordBatch.groupingThreshold)
        let expected = "{" + model.map { record in
            "\"\(record.key)\":{" + record.fields.map { "\"\($0.name)\":\($0.value)" }.joined(separator: ",") + "}"
        }.joined(separator: ",") + "}"
        let json = try RecordCodecTests.withBatch("{" + parts.joined(separator: ", ") + "}") { batch in
            let (start, count) = try batch.json()
            defer { free(start) }
            return String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
        }
        // Compared whole, and named by where they part (the batch is 500 KB of JSON).
        let same = json == expected
        let parting = zip(json.utf8, expected.utf8).prefix { $0 == $1 }.count
        #expect(same, "the batch parts from the model at byte \(parting): \(String(decoding: json.utf8.dropFirst(parting).prefix(80), as: UTF8.self))")
    }

    @Test func recordsComeInTheByteOrderOfTheirKeysWhateverTheirLength() throws {
        // Keys shorter than, exactly and longer than eight and sixteen bytes; keys that
        // start others; keys that share their first sixteen bytes (ordered past them);
        // bytes above 0x7F (é) after ASCII ones.
        let keys = ["A", "A:1", "A:10", "A:2", "Ab:12345", "Ab:1234", "Ab:123456789012", "Ab:1234567890123",
                    "Ab:12345678901234", "Thing:0123456789", "Thing:0123456789b", "Thing:0123456789ab",
                    "Thing:0123456789a", "Thing:0123456789aa", "Z", "é:1", "e:1", "Post:100000000000", "Post:1"]
        // A fixed shuffle: each key's place is (index × 7) mod 19.
        let given = (0..<keys.count).map { keys[$0 * 7 % keys.count] }
        #expect(Set(given).count == keys.count)
        let expected = keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let json = "{" + given.map { #""\#($0)": {"v": 1}"# }.joined(separator: ", ") + "}"
        let ordered = try RecordCodecTests.withBatch(json) { batch in
            batch.recordsInKeyOrder().map { String(decoding: batch.key(of: Int($0)), as: UTF8.self) }
        }
        #expect(ordered == expected)
        #expect(ordered.prefix(4) == ["A", "A:1", "A:10", "A:2"])
        #expect(ordered.suffix(2) == ["e:1", "é:1"])
        // Given in key order already: the records' own order.
        let inOrder = "{" + expected.map { #""\#($0)": {"v": 1}"# }.joined(separator: ", ") + "}"
        let indices = try RecordCodecTests.withBatch(inOrder) { batch in batch.recordsInKeyOrder() }
        #expect(indices == Array(0..<Int32(keys.count)))
    }
}
