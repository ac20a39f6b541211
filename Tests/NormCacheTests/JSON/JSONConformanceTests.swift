import TestSupport
import Testing
@testable import NormCache

/// normcache's own JSON conformance cases (`JSONConformanceCases`, one group per rule of
/// RFC 8259 that JSONTestSuite checks) through the paths a user takes, as
/// `JSONTestSuiteTests` runs JSONTestSuite, but with the exact answer for each: an
/// accepted text is a valid document on its own and comes back, as a record field put
/// and as a custom scalar written and read, as the compact text the case gives (which
/// `CompactJSON`, an oracle apart from the scanner, must give too); a refused text gives
/// a JSON error at the case's byte offset, with its words, alone and inside a record or
/// a response, and nothing is written. Nesting and duplicate keys have tests of their own.
@Suite struct JSONConformanceTests {
    /// What comes before a text put as the value of field `v` of record `J:1`.
    static let recordPrefix = Array(#"{"J:1": {"v": "#.utf8)
    /// What comes before a text written as the custom scalar `v` of a response.
    static let responsePrefix = Array(#"{"data": {"v": "#.utf8)
    /// What closes both.
    static let suffix = Array("}}".utf8)

    @Test func everyRuleGroupHasCasesBothWays() {
        let counts = JSONConformanceCases.groups.map { "\($0.name): \($0.accepted.count) accepted, \($0.refused.count) refused" }
        #expect(counts == ["structure: 14 accepted, 48 refused", "literals: 2 accepted, 15 refused", "numbers: 22 accepted, 29 refused",
                           "strings: 23 accepted, 74 refused", "whitespace: 5 accepted, 11 refused"])
        let names = JSONConformanceCases.accepted.map(\.testDescription) + JSONConformanceCases.refused.map(\.testDescription)
        #expect(Set(names).count == names.count, "two cases share a name")
    }

    @Test(arguments: JSONConformanceCases.accepted)
    func accepted(_ json: AcceptedJSON) throws {
        #expect(CompactJSON.of(json.text) == json.compact, "the oracle reads the text otherwise")
        #expect(Self.failure { () throws(NormCacheError) in _ = try json.text.withBytes { (bytes) throws(NormCacheError) in try JSONValidation.valueCount(bytes) } } == nil,
                "refused as a whole document")
        let (test, operation) = try TestCache.withScalarField()
        _ = try test.cache.put(bytes: Self.recordPrefix + json.text + Self.suffix)
        #expect(try test.cache.record("J:1") == #"{"v":"# + String(decoding: json.compact, as: UTF8.self) + "}")
        _ = try test.cache.write(operation, responseBytes: Self.responsePrefix + json.text + Self.suffix)
        #expect(try test.cache.read(operation) == ReadResult(status: .complete, data: Array(#"{"v":"#.utf8) + json.compact + Array("}".utf8)))
    }

    @Test(arguments: JSONConformanceCases.refused)
    func refused(_ json: RefusedJSON) throws {
        let (test, operation) = try TestCache.withScalarField()
        let inRecord = Self.recordPrefix + json.text + Self.suffix
        let inResponse = Self.responsePrefix + json.text + Self.suffix
        let outcomes: [(path: String, input: [UInt8], shift: Int, expected: RefusedJSON.Failure, error: NormCacheError?)] = [
            ("put of the text alone", json.text, 0, json.alone,
             Self.failure { () throws(NormCacheError) in _ = try test.cache.put(bytes: json.text) }),
            ("put of a record holding it", inRecord, Self.recordPrefix.count, json.inField,
             Self.failure { () throws(NormCacheError) in _ = try test.cache.put(bytes: inRecord) }),
            ("write of a response holding it", inResponse, Self.responsePrefix.count, json.inField,
             Self.failure { () throws(NormCacheError) in _ = try test.cache.write(operation, responseBytes: inResponse) }),
        ]
        for outcome in outcomes {
            let words = outcome.expected.words.replacing("{end}", with: String(outcome.input.count))
            let expected = NormCacheError(.json, "JSON error at byte \(outcome.shift + outcome.expected.at): \(words)")
            #expect(outcome.error == expected, "\(outcome.path)")
        }
        #expect(try test.cache.keys(withPrefix: "").isEmpty)
    }

    // MARK: Nesting (RFC 8259 §9: a parser may limit it; normcache.h: 512 levels, counting the top-level object)

    /// `levels` arrays, one inside the other, around `inner`.
    static func arrays(_ levels: Int, around inner: String = "") -> [UInt8] {
        Array((String(repeating: "[", count: levels) + inner + String(repeating: "]", count: levels)).utf8)
    }

    /// `levels` objects, each the value of member "a" of the one around it, around `inner`.
    static func objects(_ levels: Int, around inner: String) -> [UInt8] {
        Array((String(repeating: #"{"a":"#, count: levels) + inner + String(repeating: "}", count: levels)).utf8)
    }

    /// Arrays and objects taking turns, `levels` in all (an even number), around `inner`.
    static func mixed(_ levels: Int, around inner: String) -> [UInt8] {
        Array((String(repeating: #"[{"a":"#, count: levels / 2) + inner + String(repeating: "}]", count: levels / 2)).utf8)
    }

    /// The token count of a whole document, or the error.
    static func count(_ text: [UInt8]) -> Result<Int, NormCacheError> {
        Result { () throws(NormCacheError) in try text.withBytes { (bytes) throws(NormCacheError) in try JSONValidation.valueCount(bytes) } }
    }

    @Test func nestingExactlyAtTheCapIsAccepted() throws {
        #expect(try Self.count(Self.arrays(512)).get() == 512)
        #expect(try Self.count(Self.objects(512, around: "1")).get() == 1025)
        #expect(try Self.count(Self.mixed(512, around: "null")).get() == 769)
    }

    @Test func nestingPastTheCapIsRefusedWhereTheDeepestOpens() {
        let tooDeep = "JSON nested deeper than 512 levels"
        #expect(Self.count(Self.arrays(513)) == .failure(NormCacheError(.json, "JSON error at byte 512: \(tooDeep)")))
        #expect(Self.count(Self.objects(513, around: "1")) == .failure(NormCacheError(.json, "JSON error at byte 2560: \(tooDeep)")))
        #expect(Self.count(Self.mixed(514, around: "null")) == .failure(NormCacheError(.json, "JSON error at byte 1536: \(tooDeep)")))
        // Far past the cap, and never closed: refused at the same place, without
        // exhausting any stack.
        #expect(Self.count(Array(repeating: UInt8(ascii: "["), count: 100_000))
            == .failure(NormCacheError(.json, "JSON error at byte 512: \(tooDeep)")))
        #expect(Self.count(Array(String(repeating: #"{"a":"#, count: 100_000).utf8))
            == .failure(NormCacheError(.json, "JSON error at byte 2560: \(tooDeep)")))
    }

    /// A field's value sits inside the record (or `data`) and the top-level object: two
    /// levels of the 512.
    @Test func aFieldsValueMayNestTo510Levels() throws {
        let (test, operation) = try TestCache.withScalarField()
        for value in [Self.arrays(510), Self.objects(510, around: #""deep""#), Self.mixed(508, around: "[[]]")] {
            _ = try test.cache.put(bytes: Self.recordPrefix + value + Self.suffix)
            #expect(try test.cache.record("J:1") == #"{"v":"# + String(decoding: value, as: UTF8.self) + "}")
            _ = try test.cache.write(operation, responseBytes: Self.responsePrefix + value + Self.suffix)
            #expect(try test.cache.read(operation) == ReadResult(status: .complete, data: Array(#"{"v":"#.utf8) + value + Array("}".utf8)))
        }
        let tooDeep = "JSON nested deeper than 512 levels"
        for (value, at) in [(Self.arrays(511), 510), (Self.objects(511, around: "1"), 2550), (Self.mixed(512, around: "1"), 1530)] {
            #expect(Self.failure { () throws(NormCacheError) in _ = try test.cache.put(bytes: Self.recordPrefix + value + Self.suffix) }
                    == NormCacheError(.json, "JSON error at byte \(Self.recordPrefix.count + at): \(tooDeep)"))
            #expect(Self.failure { () throws(NormCacheError) in
                _ = try test.cache.write(operation, responseBytes: Self.responsePrefix + value + Self.suffix)
            } == NormCacheError(.json, "JSON error at byte \(Self.responsePrefix.count + at): \(tooDeep)"))
        }
    }

    // MARK: Duplicate keys (RFC 8259 §4: names SHOULD be unique; what a parser does otherwise varies)

    @Test func duplicateKeysInsideAValueAreKeptAsWritten() throws {
        let (test, operation) = try TestCache.withScalarField()
        let value = #"{"a":1,"b":[2],"a":{"c":3},"a":1}"#
        _ = try test.cache.put(json: #"{"J:1": {"v": "# + value + "}}")
        #expect(try test.cache.record("J:1") == #"{"v":"# + value + "}")
        _ = try test.cache.write(operation, #"{"data": {"v": "# + value + "}}")
        #expect(try test.cache.readText(operation) == #"{"v":"# + value + "}")
    }

    /// A field given twice in one record is merged in order, as two puts would be: the
    /// last value stays, and the field is reported changed once.
    @Test func aFieldGivenTwiceInOneRecordKeepsTheLastValue() throws {
        let (test, _) = try TestCache.withScalarField()
        #expect(try test.cache.put(json: #"{"J:1": {"v": 1, "w": true, "v": [2]}}"#) == ["J:1.v", "J:1.w"])
        #expect(try test.cache.record("J:1") == #"{"v":[2],"w":true}"#)
        #expect(try test.cache.put(json: #"{"J:1": {"v": 3, "v": [2]}}"#) == [])
    }

    /// normcache.h: a record key that appears twice in one input is merged in input order.
    @Test func aRecordGivenTwiceInOnePutIsMergedInOrder() throws {
        let (test, _) = try TestCache.withScalarField()
        #expect(try test.cache.put(json: #"{"J:1": {"v": 1, "w": 1}, "J:2": {"v": 0}, "J:1": {"v": 2}}"#) == ["J:1.v", "J:1.w", "J:2.v"])
        #expect(try test.cache.record("J:1") == #"{"v":2,"w":1}"#)
    }

    /// In a response, a selected field whose key appears twice is read from the first
    /// one: the normalizer finds a field by its key and stops there. (put keeps the
    /// last; this test pins today's behaviour of the write path.)
    @Test func aSelectedFieldGivenTwiceInAResponseIsReadFromTheFirst() throws {
        let (test, operation) = try TestCache.withScalarField()
        _ = try test.cache.write(operation, #"{"data": {"v": 1, "v": 2}}"#)
        #expect(try test.cache.readText(operation) == #"{"v":1}"#)
        #expect(try test.cache.record("QUERY_ROOT") == #"{"v":1}"#)
    }

    /// The error `body` throws, or nil.
    static func failure(_ body: () throws(NormCacheError) -> Void) -> NormCacheError? {
        do throws(NormCacheError) {
            try body()
            return nil
        } catch {
            return error
        }
    }
}

extension TestCache {
    /// A cache with durability `.fast` whose schema makes the root field `v` a custom
    /// scalar, and the operation `{ v }`: any JSON value can be written and read as `v`.
    static func withScalarField() throws -> (TestCache, PreparedOperation) {
        var options = CacheOptions()
        options.durability = .fast
        let test = try TestCache(options: options)
        try test.cache.loadSchema("scalar JSON\ntype Query { v: JSON }")
        return (test, try test.cache.prepare("{ v }"))
    }
}
