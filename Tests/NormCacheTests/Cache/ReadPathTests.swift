import TestSupport
import Testing
@testable import NormCache

/// The reader's shortcuts: fields looked for where the last record of a shape had
/// them, records met before found again, strings and numbers written straight. Each
/// must give what the plain lookups give.
@Suite struct ReadPathTests {
    @Test func recordsOfOneTypeWithDifferentFieldsReadRight() throws {
        let test = try TestCache()
        // The same type with fields before, between and after the selected ones, and some missing.
        _ = try test.cache.put(json: #"""
        {"QUERY_ROOT": {"items": [{"$reference": "I:1"}, {"$reference": "I:2"}, {"$reference": "I:3"}, {"$reference": "I:4"}]},
         "I:1": {"a": 1, "m": 2, "z": 3},
         "I:2": {"0": 0, "a": 4, "b": 5, "m": 6, "y": 7, "z": 8},
         "I:3": {"m": 9, "z": 10, "zz": 11},
         "I:4": {"a": 12, "m": 13, "z": 14}}
        """#)
        let op = try test.cache.prepare("{ items { z a m } }")
        #expect(try test.cache.readText(op, partial: true)
            == #"MISS ["items.2.a"] {"items":[{"z":3,"a":1,"m":2},{"z":8,"a":4,"m":6},{"z":10,"a":null,"m":9},{"z":14,"a":12,"m":13}]}"#)
    }

    @Test func manyRecordsReferredToOnceAndSomeOftenReadRight() throws {
        let test = try TestCache()
        // 300 posts, each referred to once, sharing 7 authors: the posts' field stops
        // keeping its records after 64 lookups, the authors' keeps them.
        var records = [#""QUERY_ROOT": {"feed": [\#((0..<300).map { #"{"$reference": "P:\#($0)"}"# }.joined(separator: ","))]}"#]
        for post in 0..<300 { records.append(#""P:\#(post)": {"t": "post \#(post)", "by": {"$reference": "U:\#(post % 7)"}}"#) }
        for user in 0..<7 { records.append(#""U:\#(user)": {"n": "user \#(user)"}"#) }
        _ = try test.cache.put(json: "{" + records.joined(separator: ",") + "}")
        let op = try test.cache.prepare("{ feed { t by { n } } }")
        let expected = "{\"feed\":[" + (0..<300).map { #"{"t":"post \#($0)","by":{"n":"user \#($0 % 7)"}}"# }.joined(separator: ",") + "]}"
        #expect(try test.cache.readText(op) == expected)
        #expect(try test.cache.readText(op) == expected)
    }

    @Test func everySpecialCharacterAtEveryPlaceIsEscaped() throws {
        let test = try TestCache()
        let op = try test.cache.prepare("{ s }")
        // The escapes normcache.h documents, written out apart from the library's code.
        for special in [#"\""#, #"\\"#, #"\n"#, #"\u0001"#, #"\u001f"#, "é"] {
            for plain in 0...17 {
                let run = String(repeating: "a", count: plain)
                let escaped = "\"" + run + special + run + "\""
                _ = try test.cache.put(json: #"{"QUERY_ROOT": {"s": \#(escaped)}}"#)
                #expect(try test.cache.readText(op) == #"{"s":\#(escaped)}"#, "\(plain) plain bytes around \(escaped)")
                #expect(try test.cache.record("QUERY_ROOT") == #"{"s":\#(escaped)}"#)
            }
        }
    }

    @Test func longValuesAndOddLengthsTakeTheFullPath() throws {
        let test = try TestCache()
        let op = try test.cache.prepare("{ long n e }")
        let long = String(repeating: "x", count: 300)
        _ = try test.cache.write(op, #"{"data": {"long": "\#(long)", "n": 12345678901234567890123, "e": ""}}"#)
        #expect(try test.cache.readText(op) == #"{"long":"\#(long)","n":12345678901234567890123,"e":""}"#)
    }
}
