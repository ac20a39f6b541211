import Testing
@testable import NormCache

/// The JSON scanner on its own: grammar, positions in errors, UTF-8, depth.
@Suite final class JSONScannerTests {
    /// The bytes of the documents a test scanned: a document borrows its bytes, so they
    /// live as long as the test and are freed with it.
    private var texts: [UnsafeMutableRawBufferPointer] = []

    deinit {
        for text in texts { text.deallocate() }
    }

    func scan(_ text: String) throws(NormCacheError) -> JSONDocument {
        let bytes = Array(text.utf8)
        let pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        bytes.withUnsafeBytes { pointer.copyMemory(from: $0) }
        texts.append(pointer)
        return try JSONDocument(scanning: UnsafeRawBufferPointer(pointer))
    }

    func error(_ text: String) -> NormCacheError? {
        do { _ = try scan(text); return nil } catch { return error }
    }

    @Test func tokensOfANestedDocument() throws {
        let document = try scan(#" {"a": [1, -2.5e3, "x\n"], "b": {"c": null}, "d": true} "#)
        #expect(document.tokens.map(\.kind) == [.object, .string, .array, .number, .number, .string,
                                                 .string, .object, .string, .null, .string, .true])
        #expect(document.tokens[0].length == 3)
        #expect(document.tokens[0].end == 12)
        #expect(document.tokens[2].length == 3)
        #expect(String(decoding: document.rawText(4), as: UTF8.self) == "-2.5e3")
        #expect(document.stringBytes(5) == Array("x\n".utf8))
        #expect(document.members(ofObject: 0).map { String(decoding: document.stringBytes($0.key), as: UTF8.self) } == ["a", "b", "d"])
        #expect(Array(document.elements(ofArray: 2)) == [3, 4, 5])
    }

    @Test func aKeyIsExpectedExactlyWhereAnObjectMemberBegins() throws {
        // Keys after containers that close, elements after objects that close, each with
        // and without whitespace: an object member starts with a key, an element never.
        for text in [#"{"a":[{"b":{}},{"c":[]}],"d":{"e":[1,{"f":2}]},"g":3}"#,
                     #" { "a" : [ { "b" : { } } , { "c" : [ ] } ] , "d" : { "e" : [ 1 , { "f" : 2 } ] } , "g" : 3 } "#] {
            let document = try scan(text)
            #expect(document.tokens.map(\.kind) == [.object, .string, .array, .object, .string, .object, .object, .string, .array,
                                                     .string, .object, .string, .array, .number, .object, .string, .number,
                                                     .string, .number])
            let names = { (object: Int) -> [String] in
                document.members(ofObject: object).map { String(decoding: document.stringBytes($0.key), as: UTF8.self) }
            }
            #expect(names(0) == ["a", "d", "g"])
            #expect(names(3) == ["b"])
            #expect(names(14) == ["f"])
            #expect(Array(document.elements(ofArray: 2)) == [3, 6])
            #expect(Array(document.elements(ofArray: 12)) == [13, 14])
        }
        #expect(error(#"{"a":{},1}"#)?.message == "JSON error at byte 8: expected a string as object key")
        #expect(error(#"[{"a":1},"b":2]"#)?.message == "JSON error at byte 12: expected ',' or ']' after an array element")
        #expect(error(#"{"a":[1],"b"}"#)?.message == "JSON error at byte 12: expected ':' after an object key")
    }

    @Test func longStringsFindEveryQuoteEscapeControlAndMultiByteCharacter() throws {
        // Strings are scanned 8 bytes at a time; a special byte anywhere in a word, in
        // the first, a middle or the last of several, must still be found where it is.
        for plain in 0...40 {
            let run = String(repeating: "a", count: plain)
            let document = try scan("\"" + run + "\\n" + run + "é" + run + "\"")
            #expect(document.stringBytes(0) == Array((run + "\n" + run + "é" + run).utf8))
            #expect(error("\"" + run + "\u{1}" + run + "\"")?.message
                    == "JSON error at byte \(1 + plain): control character U+0001 must be escaped in a string")
            // DEL (0x7F) is plain; a byte of 0x80 and above starts a sequence to check.
            #expect(try scan("\"" + run + "\u{7F}" + run + "\"").stringBytes(0) == Array((run + "\u{7F}" + run).utf8))
            #expect(error("\"" + run + "\"")?.message == nil)
            #expect(error("[\"" + run + "\", 1]")?.message == nil)
        }
        // Bytes at the edges of the plain range, at every place of a word: no UTF-8
        // sequence starts with 0x80, 0xBF or 0xFF; 0x1F must be escaped; 0x20 and 0x7F
        // are plain.
        for plain in 0...40 {
            var bytes = Array(("\"" + String(repeating: "a", count: plain)).utf8) + [0] + Array("aaaaaaaaaaaaaaaaaaaa\"".utf8)
            for refused: UInt8 in [0x80, 0xBF, 0xFF] {
                bytes[1 + plain] = refused
                let hex = String(refused, radix: 16, uppercase: true)
                #expect(throws: NormCacheError(.json, "JSON error at byte \(1 + plain): invalid UTF-8 byte 0x\(hex)")) {
                    try bytes.withBytes { (buffer) throws(NormCacheError) in _ = try JSONDocument(scanning: buffer) }
                }
            }
            bytes[1 + plain] = 0x1F
            #expect(throws: NormCacheError(.json, "JSON error at byte \(1 + plain): control character U+001F must be escaped in a string")) {
                try bytes.withBytes { (buffer) throws(NormCacheError) in _ = try JSONDocument(scanning: buffer) }
            }
            for kept: UInt8 in [0x20, 0x7F] {
                bytes[1 + plain] = kept
                #expect(try bytes.withBytes { (buffer) throws(NormCacheError) in try JSONDocument(scanning: buffer).stringBytes(0) }
                        == Array(bytes[1..<(bytes.count - 1)]))
            }
        }
    }

    @Test func validationCountsTokensAndNamesTheOffset() throws {
        let text = Array(#"{"a": [1, "two", null], "b": {}}"#.utf8)
        #expect(try text.withUnsafeBytes { try JSONValidation.valueCount($0) } == 8)
        let broken = Array(#"{"a": [1, }"#.utf8)
        do {
            _ = try broken.withUnsafeBytes { try JSONValidation.valueCount($0) }
            Issue.record("malformed JSON was accepted")
        } catch let failure as NormCacheError {
            #expect(failure.message == "JSON error at byte 10: expected a JSON value")
        }
    }

    @Test func escapesDecodeToUTF8() throws {
        let document = try scan(#""\u00e9\uD83D\uDE00\"\\\/\b\f\r\t""#)
        #expect(document.stringBytes(0) == Array("é😀\"\\/\u{8}\u{c}\r\t".utf8))
    }

    @Test func errorsNameTheByteOffset() {
        #expect(error(#"{"a" 1}"#)?.message == "JSON error at byte 5: expected ':' after an object key")
        #expect(error(#"[1, 2"#)?.message == "JSON error at byte 5: unexpected end of input (truncated?)")
        #expect(error(#"{"a": 1,}"#)?.message == "JSON error at byte 8: expected a string as object key")
        #expect(error(#"[1 2]"#)?.message == "JSON error at byte 3: expected ',' or ']' after an array element")
        #expect(error("01")?.message == "JSON error at byte 1: unexpected text after the JSON value")
        #expect(error(#""abc"#)?.message == "JSON error at byte 0: unterminated string (input ends at byte 4)")
        #expect(error("")?.message == "JSON error at byte 0: unexpected end of input (truncated?)")
        #expect(error("nul")?.message == "JSON error at byte 3: unexpected end of input (truncated?)")
        #expect(error("[tru]")?.message == "JSON error at byte 4: invalid literal (expected 'true')")
        #expect(error("\"a\u{1}\"")?.message == "JSON error at byte 2: control character U+0001 must be escaped in a string")
        #expect(error(#""\uD800x""#)?.message == #"JSON error at byte 1: high surrogate \uD800 not followed by a low surrogate"#)
        #expect(error(#""\uDC00""#)?.message == #"JSON error at byte 1: lone low surrogate \uDC00 in a string"#)
        #expect(error("1.")?.message == "JSON error at byte 2: unexpected end of input (truncated?)")
        #expect(error("-x")?.message == "JSON error at byte 1: expected a digit in a number")
        for text in ["{", "[", "\"", "{\"a\"", "{\"a\":", "[1,", "tr"] {
            #expect(error(text)?.code == .json, "\(text)")
        }
    }

    @Test func invalidUTF8IsRejectedWhereItStarts() throws {
        let cases: [([UInt8], String)] = [
            ([0x22, 0x61, 0xFF, 0x22], "JSON error at byte 2: invalid UTF-8 byte 0xFF"),
            ([0x22, 0xC0, 0xAF, 0x22], "JSON error at byte 1: invalid UTF-8 byte 0xC0"),
            ([0x22, 0xED, 0xA0, 0x80, 0x22], "JSON error at byte 1: invalid UTF-8 sequence starting with 0xED"),
            ([0x22, 0xE2, 0x82], "JSON error at byte 1: invalid UTF-8: sequence cut short by the end of input"),
        ]
        for (bytes, message) in cases {
            #expect(throws: NormCacheError(.json, message)) {
                try bytes.withBytes { (buffer) throws(NormCacheError) in _ = try JSONDocument(scanning: buffer) }
            }
        }
    }

    @Test func nestingStopsAtTheLimit() throws {
        _ = try scan(String(repeating: "[", count: 512) + String(repeating: "]", count: 512))
        #expect(error(String(repeating: "[", count: 513) + String(repeating: "]", count: 513))?.message
            == "JSON error at byte 512: JSON nested deeper than 512 levels")
        #expect(error(String(repeating: "[", count: 100_000))?.code == .json)
        #expect(error(String(repeating: "{\"a\":", count: 100_000))?.code == .json)
    }

    /// JSONTestSuite: every y_ document accepted, every n_ rejected with a position,
    /// every i_ either way without a crash.
    @Test(TestData.external("JSONTestSuite")) func jsonTestSuite() throws {
        let directory = TestData.path("JSONTestSuite/test_parsing")
        let names = try TestData.files(in: directory)
        #expect(names.count == 318)
        for name in names {
            let bytes = try TestData.read(directory + "/" + name)
            let result = bytes.withUnsafeBytes { buffer -> NormCacheError? in
                do throws(NormCacheError) { _ = try JSONDocument(scanning: buffer); return nil } catch { return error }
            }
            if name.hasPrefix("y_") { #expect(result == nil, "\(name): \(result?.message ?? "")") }
            if name.hasPrefix("n_") {
                #expect(result?.code == .json, "\(name) was accepted")
                #expect(result?.message.hasPrefix("JSON error at byte ") ?? true, "\(name): \(result?.message ?? "")")
            }
        }
    }
}
