import Testing

@testable import NormCache

/// How the reader writes stored strings as JSON: `JSONString.plainPrefix` finds the first
/// byte to escape sixteen bytes at a time (the last sixteen overlapping; strings shorter
/// than sixteen in one gathered block or word), and `ByteBuffer.appendQuoted` escapes
/// from there.
@Suite struct JSONQuotingTests {
    /// The bytes that need an escape, and one of each kind that does not.
    static let special: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x00, 0x01, 0x0A, 0x1F]

    /// Every length up to three blocks and a half, and the lengths around four blocks.
    static let lengths = Array(0...56) + [63, 64, 65, 79]

    @Test func thePlainPrefixEndsAtTheFirstByteToEscapeAtEveryLengthAndPlace() {
        for length in Self.lengths {
            let plain = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            #expect(Self.plainPrefix(plain) == length, "length \(length), nothing to escape")
            for position in 0..<length {
                for byte in Self.special {
                    var bytes = plain
                    bytes[position] = byte
                    #expect(Self.plainPrefix(bytes) == position, "length \(length), 0x\(byte) at \(position)")
                    // A second one after it does not move the first.
                    if position + 1 < length { bytes[length - 1] = UInt8(ascii: "\"") }
                    #expect(Self.plainPrefix(bytes) == position, "length \(length), 0x\(byte) at \(position), a quote last")
                }
            }
        }
    }

    @Test func bytesThatLookLikeSpecialOnesAreNotEscaped() {
        // Neighbours of the special bytes, and the bytes of multi-byte UTF-8 (never escaped).
        for text in ["!", "#", "[]", " ~", "\u{7F}", "é", "ü!", "日本", "a€b", "😀", "abc\u{7F}", "     ", "0123456", "#$%&'()",
                     "! #$%&'()*+,-./[]^_`{|}~\u{7F} éü日本😀", "a summary of sixteen+ bytes, [bracketed] and ~tilde~"] {
            let bytes = Array(text.utf8)
            #expect(Self.plainPrefix(bytes) == bytes.count, "\(text)")
            #expect(Self.quoted(bytes) == "\"\(text)\"")
        }
    }

    @Test func shortAndLongStringsAreQuotedAndEscapedExactly() {
        let cases: [(String, String)] = [
            ("", #""""#),
            ("a", #""a""#),
            ("\"", #""\"""#),
            ("\\", #""\\""#),
            ("a\"b", #""a\"b""#),
            ("ab\n", #""ab\n""#),
            ("\u{1}", #""\u0001""#),
            ("tag\u{1F}", #""tag\u001f""#),
            ("tab\tx", #""tab\tx""#),
            ("\u{8}\u{C}\r", #""\b\f\r""#),
            ("Author 12", #""Author 12""#),
            ("quote\" at 6", #""quote\" at 6""#),
            ("seven\\7", #""seven\\7""#),
            ("a summary long enough for words, \"quoted\" and \\ slashed", #""a summary long enough for words, \"quoted\" and \\ slashed""#),
        ]
        for (text, expected) in cases {
            #expect(Self.quoted(Array(text.utf8)) == expected)
        }
    }

    /// `plainPrefix` of `bytes`, with and without copying, which must agree; the copy
    /// holds the prefix.
    private static func plainPrefix(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { source in
            let start = source.baseAddress ?? UnsafeRawPointer(bitPattern: 1).unsafelyUnwrapped
            let out = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 8, alignment: 8)
            defer { out.deallocate() }
            let checked = JSONString.plainPrefix(start, bytes.count)
            let copied = JSONString.plainPrefix(start, bytes.count, copyingTo: out.baseAddress)
            #expect(checked == copied)
            #expect(Array(out.prefix(copied)) == Array(bytes.prefix(copied)))
            return checked
        }
    }

    private static func quoted(_ bytes: [UInt8]) -> String {
        var out = ByteBuffer()
        bytes.withUnsafeBytes { out.appendQuoted($0) }
        return String(decoding: out.bytes, as: UTF8.self)
    }
}
