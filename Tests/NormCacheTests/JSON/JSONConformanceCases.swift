import Testing

// JSON conformance cases written for normcache: one or more for each rule of RFC 8259
// that JSONTestSuite checks (structure, literals, numbers, strings, whitespace), with
// the exact answer normcache gives. `JSONConformanceTests` runs them through the paths a
// user takes; nesting and duplicate keys, which depend on the enclosing document, have
// tests of their own there.

/// A JSON text normcache accepts, and the compact text it gives back for it.
struct AcceptedJSON: Sendable, CustomTestStringConvertible {
    /// The rule group (`numbers`, `strings`, ...).
    let group: String
    /// What the case shows, in words.
    let rule: String
    /// The text, as bytes (it need not be printable).
    let text: [UInt8]
    /// What normcache returns for it: whitespace outside strings dropped, strings
    /// re-escaped (`"`, `\` and control characters only), numbers as written.
    let compact: [UInt8]

    /// The case's name in the test output.
    var testDescription: String { "\(group): \(rule)" }
}

/// A JSON text normcache refuses, with the error it gives as a whole document and as
/// the value of a field.
struct RefusedJSON: Sendable, CustomTestStringConvertible {
    /// Where and why a text is refused: a byte offset and the words after it.
    struct Failure: Sendable {
        /// The offset from the first byte of the text.
        let at: Int
        /// The message after "JSON error at byte N: "; `{end}` stands for the length of
        /// the whole input (an unterminated string reports where the input ends).
        let words: String
    }

    /// The rule group (`numbers`, `strings`, ...).
    let group: String
    /// What the case shows, in words.
    let rule: String
    /// The text, as bytes (it need not be UTF-8).
    let text: [UInt8]
    /// The error when the text is the whole input.
    let alone: Failure
    /// The error when the text is a field's value, followed by the `}}` that closes
    /// the enclosing objects: the same as `alone` unless the problem is at the end of
    /// the text (where the closing braces are what the scanner meets).
    let inField: Failure

    /// The case's name in the test output.
    var testDescription: String { "\(group): \(rule)" }
}

/// The cases, by rule group.
enum JSONConformanceCases {
    /// Every accepted case.
    static let accepted: [AcceptedJSON] = groups.flatMap(\.accepted)
    /// Every refused case.
    static let refused: [RefusedJSON] = groups.flatMap(\.refused)
    /// The rule groups.
    static let groups: [Group] = [structure, literals, numbers, strings, whitespace]

    /// The accepted and refused cases of one rule group.
    struct Group: Sendable {
        /// The group's name, as the cases' descriptions begin.
        var name = ""
        /// The texts of the group that are accepted.
        var accepted: [AcceptedJSON] = []
        /// The texts of the group that are refused.
        var refused: [RefusedJSON] = []

        /// The group `name`, from the cases `build` adds.
        init(_ name: String, _ build: (inout Builder) -> Void) {
            var builder = Builder(group: name)
            build(&builder)
            self = builder.group
            self.name = name
        }

        private init() {}

        /// Adds cases to a group, naming the group in each.
        struct Builder {
            fileprivate let name: String
            fileprivate var group = Group()

            fileprivate init(group name: String) { self.name = name }

            /// A text accepted and given back as `compact` (as itself when nil).
            mutating func accept(_ rule: String, _ text: String, as compact: String? = nil) {
                accept(rule, bytes: Array(text.utf8), as: Array((compact ?? text).utf8))
            }

            /// A text of raw bytes accepted and given back as `compact`.
            mutating func accept(_ rule: String, bytes text: [UInt8], as compact: [UInt8]) {
                group.accepted.append(AcceptedJSON(group: name, rule: rule, text: text, compact: compact))
            }

            /// A text refused at the same offset, with the same words, alone and in a field.
            mutating func refuse(_ rule: String, _ text: String, at: Int, _ words: String) {
                refuse(rule, bytes: Array(text.utf8), at: at, words)
            }

            /// A text refused alone at `at` with `words`, and in a field as `inField` says.
            mutating func refuse(_ rule: String, _ text: String, at: Int, _ words: String, inField: (Int, String)) {
                refuse(rule, bytes: Array(text.utf8), at: at, words, inField: inField)
            }

            /// A text of raw bytes refused alone at `at` with `words`, and in a field as
            /// `inField` says (the same when nil).
            mutating func refuse(_ rule: String, bytes text: [UInt8], at: Int, _ words: String, inField: (Int, String)? = nil) {
                let alone = RefusedJSON.Failure(at: at, words: words)
                let field = inField.map { RefusedJSON.Failure(at: $0.0, words: $0.1) } ?? alone
                group.refused.append(RefusedJSON(group: name, rule: rule, text: text, alone: alone, inField: field))
            }
        }
    }

    /// The scanner's words for input that ends too soon.
    static let truncated = "unexpected end of input (truncated?)"
    /// ... for a byte that cannot start a value.
    static let value = "expected a JSON value"
    /// ... for anything after the one top-level value.
    static let after = "unexpected text after the JSON value"
    /// ... for what follows an object member.
    static let afterMember = "expected ',' or '}' after an object member"
    /// ... for what follows an array element.
    static let afterElement = "expected ',' or ']' after an array element"
    /// ... for an object key that is not a string.
    static let key = "expected a string as object key"
    /// ... for a key without its colon.
    static let colon = "expected ':' after an object key"

    /// RFC 8259 §2 and §4–5: one value of any kind at the top level, objects and
    /// arrays closed, members and elements separated by commas, keys strings followed by
    /// a colon, nothing before or after the value.
    static let structure = Group("structure") { cases in
        cases.accept("a number alone at the top level", "7")
        cases.accept("a string alone at the top level", #""top""#)
        cases.accept("null alone at the top level", "null")
        cases.accept("true alone at the top level", "true")
        cases.accept("false alone at the top level", "false")
        cases.accept("an empty array", "[]")
        cases.accept("an empty object", "{}")
        cases.accept("an array of every kind of value", #"[1,"a",null,true,false,{},[]]"#)
        cases.accept("arrays in arrays", "[[[]],[[],[1]]]")
        cases.accept("an object with members of every kind", #"{"a":[],"b":{},"c":"x","d":-1.5,"e":null,"f":true}"#)
        cases.accept("an empty key", #"{"":0}"#)
        cases.accept("keys that look like other tokens", #"{"1":1,"true":true,"{":"}","[":"]"}"#)
        cases.accept("a key with escapes", #"{"\u0041\n\"":1}"#, as: #"{"A\n\"":1}"#)
        cases.accept("objects in arrays in objects", #"{"a":[{"b":[{"c":{}}]}]}"#)

        cases.refuse("empty input", "", at: 0, truncated, inField: (0, value))
        cases.refuse("whitespace only", " \n", at: 2, truncated, inField: (2, value))
        cases.refuse("an unclosed array", "[", at: 1, truncated, inField: (1, value))
        cases.refuse("an unclosed array after an element", "[1", at: 2, truncated, inField: (2, afterElement))
        cases.refuse("an unclosed array after a comma", "[1,", at: 3, truncated, inField: (3, value))
        cases.refuse("nested arrays, the outer one left open", "[[]", at: 3, truncated, inField: (3, afterElement))
        // In a field, the first closing brace closes the object itself, the second the
        // record, and the outermost object is the one left open.
        cases.refuse("an unclosed object", "{", at: 1, truncated, inField: (3, truncated))
        cases.refuse("an unclosed object after a member", #"{"a":1"#, at: 6, truncated, inField: (8, truncated))
        cases.refuse("an unclosed object after a key", #"{"a""#, at: 4, truncated, inField: (4, colon))
        cases.refuse("an unclosed object after a colon", #"{"a":"#, at: 5, truncated, inField: (5, value))
        cases.refuse("a trailing comma in an array", "[1,]", at: 3, value)
        cases.refuse("a trailing comma in an object", #"{"a":1,}"#, at: 7, key)
        cases.refuse("a leading comma in an array", "[,1]", at: 1, value)
        cases.refuse("a leading comma in an object", #"{,"a":1}"#, at: 1, key)
        cases.refuse("two commas in an array", "[1,,2]", at: 3, value)
        cases.refuse("a comma alone in an array", "[,]", at: 1, value)
        cases.refuse("a missing comma between elements", "[1 2]", at: 3, afterElement)
        cases.refuse("a missing comma between members", #"{"a":1 "b":2}"#, at: 7, afterMember)
        cases.refuse("a missing colon", #"{"a" 1}"#, at: 5, colon)
        cases.refuse("a comma instead of a colon", #"{"a",1}"#, at: 4, colon)
        cases.refuse("an equals sign instead of a colon", #"{"a"=1}"#, at: 4, colon)
        cases.refuse("a key without a value", #"{"a"}"#, at: 4, colon)
        cases.refuse("a colon without a value", #"{"a":}"#, at: 5, value)
        cases.refuse("a colon in an array", #"["a":1]"#, at: 4, afterElement)
        cases.refuse("a number as key", "{1:1}", at: 1, key)
        cases.refuse("a bare word as key", "{a:1}", at: 1, key)
        cases.refuse("null as key", "{null:1}", at: 1, key)
        cases.refuse("an object as key", "{{}:1}", at: 1, key)
        cases.refuse("a single-quoted key", "{'a':1}", at: 1, key)
        cases.refuse("a single-quoted string", "['a']", at: 1, value)
        cases.refuse("an array where a member belongs", #"{"a":1,[]}"#, at: 7, key)
        cases.refuse("an array closed by a brace", "[}", at: 1, value)
        cases.refuse("an array with an element closed by a brace", "[1}", at: 2, afterElement)
        cases.refuse("an object closed by a bracket", "{]", at: 1, key)
        cases.refuse("an object with a member closed by a bracket", #"{"a":1]"#, at: 6, afterMember)
        cases.refuse("a closing bracket alone", "]", at: 0, value)
        cases.refuse("a closing brace alone", "}", at: 0, value)
        cases.refuse("a colon alone", ":", at: 0, value)
        cases.refuse("a comma alone", ",", at: 0, value)
        cases.refuse("a second value after the first", "[] []", at: 3, after, inField: (3, afterMember))
        cases.refuse("a second value right after the first", "{}{}", at: 2, after, inField: (2, afterMember))
        cases.refuse("an extra closing bracket", "[1]]", at: 3, after, inField: (3, afterMember))
        cases.refuse("a word after the value", #"{"a":1}x"#, at: 7, after, inField: (7, afterMember))
        cases.refuse("a NUL byte after the value", "[]\u{0}", at: 2, after, inField: (2, afterMember))
        cases.refuse("a word before the value", "x[]", at: 0, value)
        cases.refuse("a byte order mark before the value", "\u{FEFF}[]", at: 0, value)
        cases.refuse("a comment before the value", "// c\n1", at: 0, value)
        cases.refuse("a comment inside an array", "[1/*c*/]", at: 2, afterElement)
    }

    /// RFC 8259 §3: the literal names true, false and null, in lower case and whole.
    static let literals = Group("literals") { cases in
        cases.accept("true, false and null in an array", "[true,false,null]")
        cases.accept("true, false and null as member values", #"{"t":true,"f":false,"n":null}"#)

        cases.refuse("True with a capital", "True", at: 0, value)
        cases.refuse("FALSE in capitals", "FALSE", at: 0, value)
        cases.refuse("Null with a capital", "Null", at: 0, value)
        cases.refuse("a capital inside null", "nUll", at: 1, "invalid literal (expected 'null')")
        cases.refuse("a capital inside true", "trUe", at: 2, "invalid literal (expected 'true')")
        cases.refuse("true cut short", "tru", at: 3, truncated, inField: (3, "invalid literal (expected 'true')"))
        cases.refuse("false cut short", "fals", at: 4, truncated, inField: (4, "invalid literal (expected 'false')"))
        cases.refuse("null cut short", "nul", at: 3, truncated, inField: (3, "invalid literal (expected 'null')"))
        cases.refuse("true cut short in an array", "[tru]", at: 4, "invalid literal (expected 'true')")
        cases.refuse("a letter after true", "truex", at: 4, after, inField: (4, afterMember))
        cases.refuse("a letter after null in an array", "[nulll]", at: 5, afterElement)
        cases.refuse("a space inside null", "nu ll", at: 2, "invalid literal (expected 'null')")
        cases.refuse("nil", "nil", at: 1, "invalid literal (expected 'null')")
        cases.refuse("undefined", "undefined", at: 0, value)
        cases.refuse("a bare word", "yes", at: 0, value)
    }

    /// RFC 8259 §6: an optional minus, an integer part without leading zeros, an
    /// optional fraction and exponent; no plus sign, no hex, no NaN or Infinity. Any
    /// number the grammar allows is kept digit for digit, however large or long.
    static let numbers = Group("numbers") { cases in
        cases.accept("zero", "0")
        cases.accept("minus zero", "-0")
        cases.accept("a negative integer", "-123")
        cases.accept("a fraction", "0.5")
        cases.accept("a negative fraction with a zero", "-0.0")
        cases.accept("trailing zeros of a fraction", "1.000")
        cases.accept("an exponent", "1e2")
        cases.accept("a capital exponent", "1E2")
        cases.accept("an exponent with a plus sign", "1e+2")
        cases.accept("an exponent with a minus sign", "1E-2")
        cases.accept("an exponent with leading zeros", "1e007")
        cases.accept("a fraction with an exponent", "-1.5E+10")
        cases.accept("zero with a zero exponent", "0e0")
        cases.accept("minus zero with a negative zero exponent", "-0.0e-0")
        cases.accept("an integer past 64 bits", "12345678901234567890123")
        cases.accept("an integer past a double's precision", "9007199254740993")
        cases.accept("a long fraction", "0.1000000000000000055511151231257827021181583404541015625")
        cases.accept("a huge exponent", "1e400")
        cases.accept("a tiny exponent", "-1e-400")
        cases.accept("an exponent past 64 bits", "1E99999999999999999999")
        cases.accept("the smallest double", "4.9e-324")
        cases.accept("numbers in an array", "[1,-2,3.5,0,-0.0,1e1]")

        cases.refuse("a plus sign", "+1", at: 0, value)
        cases.refuse("a minus alone", "-", at: 1, truncated, inField: (1, "expected a digit in a number"))
        cases.refuse("a minus and a space", "- 1", at: 1, "expected a digit in a number")
        cases.refuse("two minus signs", "--1", at: 1, "expected a digit in a number")
        cases.refuse("a leading zero", "01", at: 1, after, inField: (1, afterMember))
        cases.refuse("a leading zero after a minus", "-01", at: 2, after, inField: (2, afterMember))
        cases.refuse("two zeros in an array", "[00]", at: 2, afterElement)
        cases.refuse("a leading decimal point", ".5", at: 0, value)
        cases.refuse("a decimal point after a minus", "-.5", at: 1, "expected a digit in a number")
        cases.refuse("a trailing decimal point", "1.", at: 2, truncated, inField: (2, "expected a digit after the decimal point"))
        cases.refuse("a trailing decimal point in an array", "[1.]", at: 3, "expected a digit after the decimal point")
        cases.refuse("a decimal point before an exponent", "1.e2", at: 2, "expected a digit after the decimal point")
        cases.refuse("a second decimal point", "1.2.3", at: 3, after, inField: (3, afterMember))
        cases.refuse("a decimal comma", "1,5", at: 1, after, inField: (2, key))
        cases.refuse("an exponent without digits", "1e", at: 2, truncated, inField: (2, "expected a digit in the exponent"))
        cases.refuse("an exponent sign without digits", "1e+", at: 3, truncated, inField: (3, "expected a digit in the exponent"))
        cases.refuse("an exponent without digits in an array", "[2E]", at: 3, "expected a digit in the exponent")
        cases.refuse("two exponent signs", "1e+-2", at: 3, "expected a digit in the exponent")
        cases.refuse("a fraction in the exponent", "1e2.5", at: 3, after, inField: (3, afterMember))
        cases.refuse("an exponent alone", "e1", at: 0, value)
        cases.refuse("hex", "0x1F", at: 1, after, inField: (1, afterMember))
        cases.refuse("NaN", "NaN", at: 0, value)
        cases.refuse("minus NaN", "-NaN", at: 1, "expected a digit in a number")
        cases.refuse("Infinity", "Infinity", at: 0, value)
        cases.refuse("minus Infinity", "-Infinity", at: 1, "expected a digit in a number")
        cases.refuse("a space inside a number", "1 000", at: 2, after, inField: (2, afterMember))
        cases.refuse("an underscore inside a number", "1_000", at: 1, after, inField: (1, afterMember))
        cases.refuse("a letter after a number", "[2a]", at: 2, afterElement)
        cases.refuse("a full-width digit", "\u{FF11}", at: 0, value)
    }

    /// RFC 8259 §7 and §8: strings in double quotes; `\"` `\\` `\/` `\b` `\f` `\n`
    /// `\r` `\t` and `\uXXXX` the only escapes, surrogates only in pairs; control
    /// characters U+0000–U+001F escaped, every other code point (DEL too) allowed raw;
    /// text in UTF-8, refused where it is not (normcache.h: NORMCACHE_EJSON for invalid
    /// UTF-8), at the first byte of the bad sequence.
    static let strings = Group("strings") { cases in
        cases.accept("an empty string", #""""#)
        cases.accept("the single-character escapes", #""\"\\\/\b\f\n\r\t""#, as: #""\"\\/\b\f\n\r\t""#)
        cases.accept("a solidus, escaped and not", #""\//""#, as: #""//""#)
        cases.accept("\\u escapes of ASCII letters", #""\u0041\u0062""#, as: #""Ab""#)
        cases.accept("\\u escapes in lower and upper case hex", #""\u00e9\u00E9\u00eA""#, as: "\"ééê\"")
        cases.accept("a \\u escape of NUL", #""\u0000""#, as: #""\u0000""#)
        cases.accept("\\u escapes of control characters", #""\u0001\u001F\u0008\u000c\u000A""#, as: #""\u0001\u001f\b\f\n""#)
        cases.accept("a \\u escape of DEL comes back raw", #""\u007F""#, as: "\"\u{7F}\"")
        cases.accept("a \\u escape of a quote and a backslash", #""\u0022\u005C""#, as: #""\"\\""#)
        cases.accept("a \\u escape of a CJK character", #""\u4E2D""#, as: "\"中\"")
        cases.accept("\\u escapes of noncharacters", bytes: Array(#""\uFFFF\uFDD0""#.utf8), as: [0x22, 0xEF, 0xBF, 0xBF, 0xEF, 0xB7, 0x90, 0x22])
        cases.accept("a surrogate pair", #""\uD834\uDD1E""#, as: "\"𝄞\"")
        cases.accept("a surrogate pair in lower case", #""\ud83d\ude00""#, as: "\"😀\"")
        cases.accept("the highest code point as a surrogate pair", #""\uDBFF\uDFFF""#, as: "\"\u{10FFFF}\"")
        cases.accept("a backslash before a u, escaped", #""\\u0041""#)
        cases.accept("raw UTF-8 of two, three and four bytes", "\"é中😀\"")
        let noncharacters: [UInt8] = [0x22, 0xEF, 0xBF, 0xBE, 0xEF, 0xBF, 0xBF, 0xEF, 0xB7, 0x90, 0x22]  // U+FFFE U+FFFF U+FDD0
        cases.accept("raw noncharacters", bytes: noncharacters, as: noncharacters)
        cases.accept("the highest code point raw", "\"\u{10FFFF}\"")
        cases.accept("a raw line separator", "\"a\u{2028}b\"")
        cases.accept("an unescaped DEL", "\"a\u{7F}b\"")
        cases.accept("a raw byte order mark inside a string", "\"\u{FEFF}\"")
        cases.accept("spaces inside a string are kept", #"" a  b ""#)
        cases.accept("escapes and multi-byte text past eight bytes", #""abcdefgh\nijklmnop\u00e9qrstuvwxé""#, as: "\"abcdefgh\\nijklmnopéqrstuvwxé\"")

        for byte in UInt8(0x00)...UInt8(0x1F) {
            let hex = String(byte, radix: 16, uppercase: true)
            let code = "U+00" + (hex.count == 1 ? "0" : "") + hex
            cases.refuse("a raw control character \(code)", bytes: [0x22, 0x61, byte, 0x62, 0x22], at: 2,
                         "control character \(code) must be escaped in a string")
        }
        cases.refuse("a raw control character in a key", bytes: Array(#"{"a"#.utf8) + [0x09] + Array(#"":1}"#.utf8), at: 3,
                     "control character U+0009 must be escaped in a string")
        cases.refuse("a raw control character past eight plain bytes", bytes: Array(#""abcdefghij"#.utf8) + [0x0A, 0x22], at: 11,
                     "control character U+000A must be escaped in a string")
        cases.refuse("an escape of x", #""\x41""#, at: 1, "invalid escape in a string")
        cases.refuse("an escape of a", #""\a""#, at: 1, "invalid escape in a string")
        cases.refuse("an escape of a single quote", #""\'""#, at: 1, "invalid escape in a string")
        cases.refuse("an escape of zero", #""\0""#, at: 1, "invalid escape in a string")
        cases.refuse("an escape of a capital U", #""\U0041""#, at: 1, "invalid escape in a string")
        cases.refuse("an escape of a space", #""\ ""#, at: 1, "invalid escape in a string")
        cases.refuse("an escaped line end", "\"\\\n\"", at: 1, "invalid escape in a string")
        cases.refuse("an escape of a non-ASCII character", "\"\\é\"", at: 1, "invalid escape in a string")
        cases.refuse("a \\u escape of three hex digits", #""\u004""#, at: 1, #"invalid \u escape (expected 4 hex digits)"#)
        cases.refuse("a \\u escape with a letter past F", #""\u00G1""#, at: 1, #"invalid \u escape (expected 4 hex digits)"#)
        cases.refuse("a \\u escape cut short", #""\u00"#, at: 5, truncated, inField: (1, #"invalid \u escape (expected 4 hex digits)"#))
        cases.refuse("a backslash at the end", #""\"#, at: 2, truncated, inField: (1, "invalid escape in a string"))
        cases.refuse("a lone high surrogate", #""\uD800""#, at: 1, #"high surrogate \uD800 not followed by a low surrogate"#)
        cases.refuse("a high surrogate and a letter", #""\uD834x""#, at: 1, #"high surrogate \uD834 not followed by a low surrogate"#)
        cases.refuse("a high surrogate and a BMP escape", #""\uD800\u0041""#, at: 1, #"high surrogate \uD800 not followed by a low surrogate"#)
        cases.refuse("two high surrogates", #""\uDBFF\uDBFF""#, at: 1, #"high surrogate \uDBFF not followed by a low surrogate"#)
        cases.refuse("a high surrogate at the end of input", #""\uD800"#, at: 1, #"high surrogate \uD800 not followed by a low surrogate"#)
        cases.refuse("a lone low surrogate", #""\uDC00""#, at: 1, #"lone low surrogate \uDC00 in a string"#)
        cases.refuse("a low surrogate before a high one", #""a\uDFFF\uD800""#, at: 2, #"lone low surrogate \uDFFF in a string"#)
        cases.refuse("an unterminated string", #""abc"#, at: 0, "unterminated string (input ends at byte {end})")
        cases.refuse("an unterminated key", #"{"a"#, at: 1, "unterminated string (input ends at byte {end})")
        cases.refuse("an unterminated string ending in an escaped quote", #"["a\"]"#, at: 1, "unterminated string (input ends at byte {end})")
        cases.refuse("a lone continuation byte", bytes: [0x22, 0x80, 0x22], at: 1, "invalid UTF-8 byte 0x80")
        cases.refuse("an overlong two-byte solidus", bytes: [0x22, 0xC0, 0xAF, 0x22], at: 1, "invalid UTF-8 byte 0xC0")
        cases.refuse("an overlong two-byte lead C1", bytes: [0x22, 0xC1, 0xBF, 0x22], at: 1, "invalid UTF-8 byte 0xC1")
        cases.refuse("an overlong three-byte form", bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], at: 1, "invalid UTF-8 sequence starting with 0xE0")
        cases.refuse("an overlong four-byte form", bytes: [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], at: 1, "invalid UTF-8 sequence starting with 0xF0")
        cases.refuse("a surrogate encoded in UTF-8", bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], at: 1, "invalid UTF-8 sequence starting with 0xED")
        cases.refuse("a code point past U+10FFFF", bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], at: 1, "invalid UTF-8 sequence starting with 0xF4")
        cases.refuse("a lead byte F5", bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], at: 1, "invalid UTF-8 byte 0xF5")
        cases.refuse("a byte FE", bytes: [0x22, 0xFE, 0x22], at: 1, "invalid UTF-8 byte 0xFE")
        cases.refuse("a byte FF after text", bytes: [0x22, 0x61, 0x62, 0xFF, 0x63, 0x22], at: 3, "invalid UTF-8 byte 0xFF")
        cases.refuse("a three-byte sequence cut short by the quote", bytes: [0x22, 0xE2, 0x82, 0x22], at: 1, "invalid UTF-8 sequence starting with 0xE2")
        cases.refuse("a four-byte sequence cut short by the quote", bytes: [0x22, 0xF0, 0x9F, 0x98, 0x22], at: 1, "invalid UTF-8 sequence starting with 0xF0")
        cases.refuse("a sequence cut short by the end of input", bytes: [0x22, 0xE2, 0x82], at: 1, "invalid UTF-8: sequence cut short by the end of input",
                     inField: (1, "invalid UTF-8 sequence starting with 0xE2"))
        cases.refuse("a continuation byte where a lead belongs", bytes: [0x22, 0xC3, 0xA9, 0xA9, 0x22], at: 3, "invalid UTF-8 byte 0xA9")
        cases.refuse("invalid UTF-8 past eight plain bytes", bytes: Array(#""abcdefghij"#.utf8) + [0x80, 0x22], at: 11, "invalid UTF-8 byte 0x80")
        cases.refuse("invalid UTF-8 in a key", bytes: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], at: 2, "invalid UTF-8 byte 0xFF")
        cases.refuse("invalid UTF-8 outside a string", bytes: [0x5B, 0xFF, 0x5D], at: 1, value)
        cases.refuse("raw UTF-8 outside a string", "[é]", at: 1, value)
    }

    /// RFC 8259 §2: space, horizontal tab, line feed and carriage return around any
    /// token, and nothing else: no form feed, vertical tab, no-break space or other
    /// Unicode space.
    static let whitespace = Group("whitespace") { cases in
        cases.accept("the four whitespace characters around a value", " \t\n\r1 \t\n\r", as: "1")
        cases.accept("whitespace around every token", #" { "a" : [ 1 , 2 ] , "b" : { } , "c" : [ ] } "#, as: #"{"a":[1,2],"b":{},"c":[]}"#)
        cases.accept("CRLF line ends", "{\r\n\"a\":\r\n1\r\n}", as: #"{"a":1}"#)
        cases.accept("tabs only", "\t[\ttrue\t]\t", as: "[true]")
        cases.accept("a thousand spaces", String(repeating: " ", count: 1000) + "null", as: "null")

        cases.refuse("a form feed before a value", "\u{0C}1", at: 0, value)
        cases.refuse("a form feed inside an array", "[\u{0C}]", at: 1, value)
        cases.refuse("a form feed after a value", "1\u{0C}", at: 1, after, inField: (1, afterMember))
        cases.refuse("a form feed between members", "{\"a\":1\u{0C},\"b\":2}", at: 6, afterMember)
        cases.refuse("a vertical tab", "[\u{0B}1]", at: 1, value)
        cases.refuse("a no-break space", "[\u{A0}1]", at: 1, value)
        cases.refuse("an ideographic space", "[1,\u{3000}2]", at: 3, value)
        cases.refuse("a line separator between tokens", "[1,\u{2028}2]", at: 3, value)
        cases.refuse("a byte order mark between tokens", "[1,\u{FEFF}2]", at: 3, value)
        cases.refuse("a NUL between tokens", "[\u{0}]", at: 1, value)
        cases.refuse("a backspace between tokens", "[1,\u{08}2]", at: 3, value)
    }
}
