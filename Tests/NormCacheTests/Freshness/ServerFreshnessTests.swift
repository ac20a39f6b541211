import Testing
@testable import NormCache

/// The caching headers of a response (RFC 9111, a private cache): every directive, the
/// age arithmetic with exact numbers, Expires, and exact errors for malformed input.
@Suite struct ServerFreshnessTests {
    /// The time of the write: 1970-01-12 13:46:40 UTC.
    static let now: Int64 = 1_000_000
    /// HTTP dates around `now`.
    static let dateBefore200 = "Mon, 12 Jan 1970 13:43:20 GMT"  // now − 200
    static let dateAfter100 = "Mon, 12 Jan 1970 13:48:20 GMT"  // now + 100
    static let dateAfter600 = "Mon, 12 Jan 1970 13:56:40 GMT"  // now + 600
    static let dateAfter700 = "Mon, 12 Jan 1970 13:58:20 GMT"  // now + 700
    static let theRFCDate = "Sun, 06 Nov 1994 08:49:37 GMT"  // 784111777

    func evaluate(_ cacheControl: String? = nil, age: String? = nil, date: String? = nil, expires: String? = nil,
                  now: Int64 = ServerFreshnessTests.now) throws(NormCacheError) -> ServerFreshness {
        try evaluate(bytes: cacheControl.map { Array($0.utf8) }, age: age.map { Array($0.utf8) }, date: date.map { Array($0.utf8) },
                     expires: expires.map { Array($0.utf8) }, now: now)
    }

    /// `evaluate` of raw header bytes (which need not be UTF-8).
    func evaluate(bytes cacheControl: [UInt8]?, age: [UInt8]? = nil, date: [UInt8]? = nil, expires: [UInt8]? = nil,
                  now: Int64 = ServerFreshnessTests.now) throws(NormCacheError) -> ServerFreshness {
        try withBytes(cacheControl) { (cacheControl) throws(NormCacheError) in
            try withBytes(age) { (age) throws(NormCacheError) in
                try withBytes(date) { (date) throws(NormCacheError) in
                    try withBytes(expires) { (expires) throws(NormCacheError) in
                        try ServerFreshness.evaluate(cacheControl: cacheControl, age: age, date: date, expires: expires, now: now)
                    }
                }
            }
        }
    }

    private func withBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) throws(NormCacheError) -> R) throws(NormCacheError) -> R {
        guard let bytes else { return try body(nil) }
        return try bytes.withBytes { (raw) throws(NormCacheError) in try body(raw) }
    }

    /// The `.invalidArgument` error with `message`.
    func invalid(_ message: String) -> NormCacheError { NormCacheError(.invalidArgument, message) }

    /// Expects each Cache-Control value to fail with its message.
    func expectErrors(_ cases: [(String, String)], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for (header, message) in cases {
            #expect(throws: invalid(message), "\(header)", sourceLocation: sourceLocation) { try evaluate(header) }
        }
    }

    // MARK: - Nothing said

    @Test func noHeadersOrEmptyOnesSayNothing() throws {
        #expect(try evaluate() == .unspecified)
        for value in ["", " ", "\t ", ",", ", ,", ",,,,", " \t,\t, "] {
            #expect(try evaluate(value) == .unspecified, "\(value)")
            #expect(try evaluate("max-age=60", age: value) == .expires(at: 1_000_060), "\(value)")
        }
        for value in ["", " ", "\t \t"] {
            #expect(try evaluate("max-age=60", age: value, date: value, expires: value) == .expires(at: 1_000_060), "\(value)")
            #expect(try evaluate(age: value, date: value, expires: value) == .unspecified, "\(value)")
        }
        #expect(try evaluate(bytes: [UInt8](repeating: UInt8(ascii: ","), count: 1 << 20)) == .unspecified)
    }

    @Test func ageAndDateAloneSetNoLifetime() throws {
        #expect(try evaluate(age: "100") == .unspecified)
        #expect(try evaluate(date: Self.dateBefore200) == .unspecified)
        #expect(try evaluate("public", age: "100", date: Self.dateBefore200) == .unspecified)
    }

    @Test func directivesOfSharedCachesAndExtensionsAreIgnored() throws {
        let ignored = [
            "public", "private", "private=\"Set-Cookie, X-Token\"", "must-revalidate", "proxy-revalidate", "immutable",
            "no-transform", "must-understand", "s-maxage=60", "s-maxage=abc", "stale-while-revalidate=30",
            "stale-if-error=600", "x-extension", "x-extension=token", "x-extension=\"quoted, with \\\" and \\\\\"", "~!#$%&'*+-.^_`|=~",
        ]
        for directive in ignored {
            #expect(try evaluate(directive) == .unspecified, "\(directive)")
            #expect(try evaluate("\(directive), max-age=600") == .expires(at: 1_000_600), "\(directive)")
        }
        #expect(try evaluate(ignored.joined(separator: ",")) == .unspecified)
        #expect(try evaluate(ignored.joined(separator: " ,\t")) == .unspecified)
    }

    // MARK: - max-age

    @Test func maxAgeSetsTheLifetime() throws {
        for header in ["max-age=600", "MAX-AGE=600", "Max-Age=600", "max-age=\"600\"", #"max-age="\6\0\0""#, "max-age=0000600",
                       "  max-age=600  ", "public, max-age=600 , private", ",max-age=600,", "\tmax-age=600\t,\tpublic"] {
            #expect(try evaluate(header) == .expires(at: 1_000_600), "\(header)")
        }
    }

    @Test func maxAgeZeroIsStaleAtOnce() throws {
        #expect(try evaluate("max-age=0") == .expires(at: Self.now))
        #expect(try evaluate("max-age=\"0\"") == .expires(at: Self.now))
    }

    @Test func ageAndDateTakeTheCurrentAgeFromTheLifetime() throws {
        // max-age 600, Age 100: fresh for 500 more seconds.
        #expect(try evaluate("max-age=600", age: "100") == .expires(at: 1_000_500))
        // Date 200 s ago beats Age 100: the current age is 200.
        #expect(try evaluate("max-age=600", age: "100", date: Self.dateBefore200) == .expires(at: 1_000_400))
        #expect(try evaluate("max-age=600", date: Self.dateBefore200) == .expires(at: 1_000_400))
        // Age 300 beats a Date 200 s ago.
        #expect(try evaluate("max-age=600", age: "300", date: Self.dateBefore200) == .expires(at: 1_000_300))
        // A Date ahead of now (the server's clock is fast) is an apparent age of 0.
        #expect(try evaluate("max-age=600", date: Self.dateAfter100) == .expires(at: 1_000_600))
        #expect(try evaluate("max-age=600", age: "100", date: Self.dateAfter100) == .expires(at: 1_000_500))
        // Older than its lifetime: stale at once.
        #expect(try evaluate("max-age=600", age: "600") == .expires(at: Self.now))
        #expect(try evaluate("max-age=600", age: "601") == .expires(at: Self.now))
        #expect(try evaluate("max-age=600", date: Self.theRFCDate, now: 784_111_777 + 900) == .expires(at: 784_111_777 + 900))
    }

    @Test func ageIsItsFirstListMemberWithSpacesAround() throws {
        for age in ["100", " 100 ", "\t100\t", "0100", "100, 300", "100,abc", ", 100", " ,100 , 5", "100 ,"] {
            #expect(try evaluate("max-age=600", age: age) == .expires(at: 1_000_500), "\(age)")
        }
    }

    @Test func largeValuesAreReadAs2147483648() throws {
        let limit: Int64 = 2_147_483_648
        for value in ["2147483648", "2147483649", "9223372036854775807", "9223372036854775808", "99999999999999999999999999999999"] {
            #expect(try evaluate("max-age=\(value)") == .expires(at: Self.now + limit), "\(value)")
            #expect(try evaluate("max-age=\"\(value)\"") == .expires(at: Self.now + limit), "\(value)")
            #expect(try evaluate("max-age=2147483648", age: value) == .expires(at: Self.now), "\(value)")
            #expect(try evaluate("max-age=2147483648", age: "1, \(value)") == .expires(at: Self.now + limit - 1), "\(value)")
        }
        #expect(try evaluate("max-age=2147483647") == .expires(at: Self.now + limit - 1))
        #expect(try evaluate("max-age=2147483647", age: "99999999999") == .expires(at: Self.now))
        let megabyteOfNines = Array("max-age=".utf8) + [UInt8](repeating: UInt8(ascii: "9"), count: 1 << 20)
        #expect(try evaluate(bytes: megabyteOfNines) == .expires(at: Self.now + limit))
        #expect(try evaluate(bytes: Array("max-age=60".utf8), age: [UInt8](repeating: UInt8(ascii: "9"), count: 1 << 20)) == .expires(at: Self.now))
    }

    @Test func maxAgeTwiceWithDifferentValuesIsStaleAtOnce() throws {
        #expect(try evaluate("max-age=60, max-age=120") == .expires(at: Self.now))
        #expect(try evaluate("max-age=120, public, max-age=60") == .expires(at: Self.now))
        #expect(try evaluate("max-age=60, max-age=60, max-age=61") == .expires(at: Self.now))
        #expect(try evaluate("max-age=60, max-age=0") == .expires(at: Self.now))
        // One value said twice, in any spelling, counts once.
        #expect(try evaluate("max-age=60, max-age=60") == .expires(at: 1_000_060))
        #expect(try evaluate("max-age=60, MAX-AGE=\"060\"") == .expires(at: 1_000_060))
        // Values beyond the limit are the limit, and so the same.
        #expect(try evaluate("max-age=2147483649, max-age=9999999999") == .expires(at: Self.now + 2_147_483_648))
    }

    // MARK: - no-cache and no-store

    @Test func noCacheIsStaleAtOnce() throws {
        for header in ["no-cache", "NO-CACHE", "No-Cache", "no-cache, max-age=600", "max-age=600, no-cache", "no-cache=\"Set-Cookie\"",
                       "no-cache=x", "public, no-cache, max-age=60, max-age=120"] {
            #expect(try evaluate(header) == .expires(at: Self.now), "\(header)")
            #expect(try evaluate(header, age: "100", date: Self.dateBefore200, expires: Self.dateAfter600) == .expires(at: Self.now), "\(header)")
        }
    }

    @Test func noStoreBeatsEverything() throws {
        for header in ["no-store", "NO-STORE", "max-age=600, no-store", "no-store, max-age=600", "no-cache, no-store", "no-store=x",
                       "max-age=60, max-age=120, no-store", "private, no-store, no-cache, must-revalidate"] {
            #expect(try evaluate(header) == .noStore, "\(header)")
            #expect(try evaluate(header, age: "100", date: Self.dateBefore200, expires: Self.dateAfter600) == .noStore, "\(header)")
            #expect(try evaluate(header, expires: "0") == .noStore, "\(header)")
        }
    }

    @Test func malformedHeadersAreErrorsEvenBesideNoStore() {
        #expect(throws: invalid("Cache-Control: malformed max-age at byte 26 ('max-age=abc'): it needs a whole number of seconds")) {
            try evaluate("no-store, public, max-age=abc")
        }
        #expect(throws: invalid("Age: malformed value at byte 0 ('x'): it needs a whole number of seconds")) {
            try evaluate("no-store", age: "x")
        }
        #expect(throws: invalid("Date: malformed HTTP date at byte 0 ('x'): a date is written as 'Sun, 06 Nov 1994 08:49:37 GMT'")) {
            try evaluate("no-store", date: "x")
        }
    }

    // MARK: - Expires

    @Test func expiresWithoutDateCountsFromNow() throws {
        #expect(try evaluate(expires: Self.dateAfter600) == .expires(at: 1_000_600))
        #expect(try evaluate(expires: Self.dateAfter700) == .expires(at: 1_000_700))
        #expect(try evaluate(expires: "Monday, 12-Jan-70 13:56:40 GMT") == .expires(at: 1_000_600))
        #expect(try evaluate(expires: "Mon Jan 12 13:56:40 1970") == .expires(at: 1_000_600))
        #expect(try evaluate(expires: "  \(Self.dateAfter600)\t") == .expires(at: 1_000_600))
        #expect(try evaluate("public", age: "100", expires: Self.dateAfter600) == .expires(at: 1_000_500))
    }

    @Test func expiresWithDateCountsFromDate() throws {
        // The server's clock is 100 s fast: Expires − Date is a lifetime of 600 from now.
        #expect(try evaluate(date: Self.dateAfter100, expires: Self.dateAfter700) == .expires(at: 1_000_600))
        #expect(try evaluate(age: "50", date: Self.dateAfter100, expires: Self.dateAfter700) == .expires(at: 1_000_550))
        // Date 200 s ago: a lifetime of 800, less a current age of 200.
        #expect(try evaluate(date: Self.dateBefore200, expires: Self.dateAfter600) == .expires(at: 1_000_600))
        #expect(try evaluate(age: "300", date: Self.dateBefore200, expires: Self.dateAfter600) == .expires(at: 1_000_500))
        // Expires at or before Date: stale at once.
        #expect(try evaluate(date: Self.dateAfter600, expires: Self.dateAfter600) == .expires(at: Self.now))
        #expect(try evaluate(date: Self.dateAfter700, expires: Self.dateAfter600) == .expires(at: Self.now))
    }

    @Test func anInvalidOrPastExpiresIsStaleAtOnce() throws {
        let invalid = ["0", "-1", "1000600", "never", "Mon, 12 Jan 1970 13:56:40", "Tue, 12 Jan 1970 13:56:40 GMT",
                       "Mon, 29 Feb 1900 00:00:00 GMT", "\"\(Self.dateAfter600)\""]
        for expires in invalid {
            #expect(try evaluate(expires: expires) == .expires(at: Self.now), "\(expires)")
            #expect(try evaluate("public", age: "5", date: Self.dateBefore200, expires: expires) == .expires(at: Self.now), "\(expires)")
        }
        for hostile: [UInt8] in [[0], [0xFF, 0xFE], Array("Mon, 12 Jan 1970 13:56:40 GMT\0".utf8), [UInt8](repeating: 0x41, count: 1 << 20)] {
            #expect(try evaluate(bytes: nil, expires: hostile) == .expires(at: Self.now))
        }
        #expect(try evaluate(expires: Self.dateBefore200) == .expires(at: Self.now))
        #expect(try evaluate(expires: "Thu, 01 Jan 1970 00:00:00 GMT") == .expires(at: Self.now))
    }

    @Test func maxAgeBeatsExpires() throws {
        #expect(try evaluate("max-age=60", expires: Self.dateAfter600) == .expires(at: 1_000_060))
        #expect(try evaluate("max-age=60", expires: "0") == .expires(at: 1_000_060))
        #expect(try evaluate("max-age=60", date: Self.dateAfter100, expires: Self.dateAfter700) == .expires(at: 1_000_060))
        #expect(try evaluate("max-age=0", expires: Self.dateAfter600) == .expires(at: Self.now))
    }

    // MARK: - Extreme clocks

    @Test func arithmeticSaturatesInsteadOfOverflowing() throws {
        #expect(try evaluate("max-age=600", now: .max) == .expires(at: .max))
        #expect(try evaluate("max-age=600", age: "100", date: "Mon, 01 Jan 0001 00:00:00 GMT", now: .max) == .expires(at: .max))
        #expect(try evaluate(date: "Mon, 01 Jan 0001 00:00:00 GMT", expires: "Fri, 31 Dec 9999 23:59:59 GMT", now: .max) == .expires(at: .max))
        #expect(try evaluate("max-age=600", now: .min) == .expires(at: .min + 600))
        #expect(try evaluate(date: "Fri, 31 Dec 9999 23:59:59 GMT", expires: "Mon, 01 Jan 0001 00:00:00 GMT", now: .min) == .expires(at: .min))
        #expect(try evaluate(expires: "Fri, 31 Dec 9999 23:59:59 GMT", now: 0) == .expires(at: 253_402_300_799))
        #expect(try evaluate(expires: "Mon, 01 Jan 0001 00:00:00 GMT", now: 0) == .expires(at: 0))
    }

    // MARK: - Malformed Cache-Control

    @Test func malformedMaxAgeNamesTheByte() {
        let cases: [(String, String)] = [
            ("max-age=abc", "Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it needs a whole number of seconds"),
            ("max-age=-1", "Cache-Control: malformed max-age at byte 8 ('max-age=-1'): it needs a whole number of seconds"),
            ("max-age=+1", "Cache-Control: malformed max-age at byte 8 ('max-age=+1'): it needs a whole number of seconds"),
            ("max-age=1e3", "Cache-Control: malformed max-age at byte 9 ('max-age=1e3'): it needs a whole number of seconds"),
            ("max-age=5.5", "Cache-Control: malformed max-age at byte 9 ('max-age=5.5'): it needs a whole number of seconds"),
            ("max-age=", "Cache-Control: malformed max-age at byte 8 ('max-age='): it needs a whole number of seconds"),
            ("max-age= ", "Cache-Control: malformed max-age at byte 8 ('max-age='): it needs a whole number of seconds"),
            ("max-age=, public", "Cache-Control: malformed max-age at byte 8 ('max-age='): it needs a whole number of seconds"),
            ("max-age", "Cache-Control: malformed max-age at byte 7 ('max-age'): it needs a whole number of seconds"),
            ("public, Max-Age", "Cache-Control: malformed max-age at byte 15 ('Max-Age'): it needs a whole number of seconds"),
            ("max-age =60", "Cache-Control: malformed max-age at byte 7 ('max-age =60'): it needs a whole number of seconds"),
            ("max-age=\"\"", "Cache-Control: malformed max-age at byte 9 ('max-age=\"\"'): it needs a whole number of seconds"),
            ("max-age=\"5 \"", "Cache-Control: malformed max-age at byte 10 ('max-age=\"5 \"'): it needs a whole number of seconds"),
            ("max-age=\"-1\"", "Cache-Control: malformed max-age at byte 9 ('max-age=\"-1\"'): it needs a whole number of seconds"),
            ("max-age=abc;x", "Cache-Control: malformed max-age at byte 8 ('max-age=abc;x'): it needs a whole number of seconds"),
            ("max-age=60, max-age=x", "Cache-Control: malformed max-age at byte 20 ('max-age=x'): it needs a whole number of seconds"),
        ]
        expectErrors(cases)
        #expect(throws: invalid("Cache-Control: malformed max-age at byte 8 ('max-age=\\xFF'): it needs a whole number of seconds")) {
            try evaluate(bytes: Array("max-age=".utf8) + [0xFF])
        }
        #expect(throws: invalid("Cache-Control: malformed max-age at byte 9 ('max-age=\"\\xC3\\xA9\"'): it needs a whole number of seconds")) {
            try evaluate("max-age=\"é\"")
        }
    }

    @Test func aDirectiveStartsWithAName() {
        let hint = "a directive starts with a name of letters, digits and !#$%&'*+-.^_`|~"
        let cases: [(String, String)] = [
            ("=5", "Cache-Control: malformed directive at byte 0 ('=5'): \(hint)"),
            ("public, =5", "Cache-Control: malformed directive at byte 8 ('=5'): \(hint)"),
            ("\"max-age\"=5", "Cache-Control: malformed directive at byte 0 ('\"max-age\"=5'): \(hint)"),
            ("(comment)", "Cache-Control: malformed directive at byte 0 ('(comment)'): \(hint)"),
            ("max-age=60, ;", "Cache-Control: malformed directive at byte 12 (';'): \(hint)"),
            ("é", "Cache-Control: malformed directive at byte 0 ('\\xC3\\xA9'): \(hint)"),
        ]
        expectErrors(cases)
        #expect(throws: invalid("Cache-Control: malformed directive at byte 0 ('\\x00'): \(hint)")) { try evaluate(bytes: [0]) }
        #expect(throws: invalid("Cache-Control: malformed directive at byte 9 ('\\xFFabc'): \(hint)")) {
            try evaluate(bytes: Array("no-store,".utf8) + [0xFF] + Array("abc".utf8))
        }
    }

    @Test func aValueAfterEqualsIsATokenOrAQuotedString() {
        let hint = "'=' must be followed by a token or a quoted string"
        let cases: [(String, String)] = [
            ("private=", "Cache-Control: malformed private at byte 8 ('private='): \(hint)"),
            ("private=, public", "Cache-Control: malformed private at byte 8 ('private='): \(hint)"),
            ("x-ext=;", "Cache-Control: malformed x-ext at byte 6 ('x-ext=;'): \(hint)"),
            ("s-maxage= 60", "Cache-Control: malformed s-maxage at byte 9 ('s-maxage= 60'): \(hint)"),
            ("No-Cache==", "Cache-Control: malformed No-Cache at byte 9 ('No-Cache=='): \(hint)"),
        ]
        expectErrors(cases)
    }

    @Test func quotedStringsMustBeClosedAndHoldNoControlBytes() throws {
        let unterminated = "it needs a closing '\"'"
        let cases: [(String, String)] = [
            ("private=\"abc", "Cache-Control: unterminated quoted string at byte 8 ('private=\"abc'): \(unterminated)"),
            ("max-age=\"60", "Cache-Control: unterminated quoted string at byte 8 ('max-age=\"60'): \(unterminated)"),
            ("x=\"a, max-age=5", "Cache-Control: unterminated quoted string at byte 2 ('x=\"a, max-age=5'): \(unterminated)"),
            ("x=\"a\\\"", "Cache-Control: unterminated quoted string at byte 2 ('x=\"a\\\"'): \(unterminated)"),
            ("x=\"a\\", "Cache-Control: unterminated quoted string at byte 2 ('x=\"a\\'): \(unterminated)"),
            ("public, x=\"", "Cache-Control: unterminated quoted string at byte 10 ('x=\"'): \(unterminated)"),
        ]
        expectErrors(cases)
        #expect(throws: invalid("Cache-Control: malformed quoted string at byte 4 ('x=\"a\\x00b\"'): control byte 0x00 is not allowed in a quoted string")) {
            try evaluate(bytes: Array("x=\"a".utf8) + [0] + Array("b\"".utf8))
        }
        #expect(throws: invalid("Cache-Control: malformed quoted string at byte 4 ('x=\"\\\\x0A\"'): control byte 0x0A is not allowed in a quoted string")) {
            try evaluate("x=\"\\\n\"")
        }
        #expect(throws: invalid("Cache-Control: malformed quoted string at byte 3 ('x=\"\\x7F\"'): control byte 0x7F is not allowed in a quoted string")) {
            try evaluate("x=\"\u{7F}\"")
        }
        // Tabs, spaces and bytes 0x80–0xFF (obs-text) are allowed, as themselves or quoted.
        #expect(try evaluate(bytes: Array("x=\"\t \\\t\\ ".utf8) + [0x80, 0xFF, UInt8(ascii: "\\"), 0xFE] + Array("\", max-age=60".utf8))
                == .expires(at: 1_000_060))
    }

    @Test func anythingButACommaAfterADirectiveIsAnError() {
        let hint = "directives are separated by commas"
        let cases: [(String, String)] = [
            ("max-age=60 x", "Cache-Control: unexpected 'x' at byte 11 ('max-age=60 x'): \(hint)"),
            ("max-age=60;", "Cache-Control: unexpected ';' at byte 10 ('max-age=60;'): \(hint)"),
            ("max-age=60; public", "Cache-Control: unexpected ';' at byte 10 ('max-age=60; public'): \(hint)"),
            ("no-store no-cache", "Cache-Control: unexpected 'n' at byte 9 ('no-store no-cache'): \(hint)"),
            ("private=\"a\"b", "Cache-Control: unexpected 'b' at byte 11 ('private=\"a\"b'): \(hint)"),
            ("private =x", "Cache-Control: unexpected '=' at byte 8 ('private =x'): \(hint)"),
            ("public, private=\"a, b\" \"c\", max-age=1", "Cache-Control: unexpected '\"' at byte 23 ('private=\"a, b\" \"c\"'): \(hint)"),
            ("max-age=60\r\n", "Cache-Control: unexpected 0x0D at byte 10 ('max-age=60\\x0D\\x0A'): \(hint)"),
            ("max-âge=60", "Cache-Control: unexpected 0xC3 at byte 4 ('max-\\xC3\\xA2ge=60'): \(hint)"),
        ]
        expectErrors(cases)
        #expect(throws: invalid("Cache-Control: unexpected 0x00 at byte 5 ('no-st\\x00re'): \(hint)")) {
            try evaluate(bytes: Array("no-st".utf8) + [0] + Array("re".utf8))
        }
        #expect(throws: invalid("Cache-Control: unexpected 0x00 at byte 10 ('max-age=60\\x00'): \(hint)")) {
            try evaluate(bytes: Array("max-age=60".utf8) + [0])
        }
    }

    @Test func megabyteHeadersAreReadWholeAndQuotedShort() throws {
        let megabyte = 1 << 20
        // A megabyte of ignored directives.
        var list: [UInt8] = []
        while list.count < megabyte { list += Array("x-a, x-b=\"c, d\", ".utf8) }
        #expect(try evaluate(bytes: list + Array("max-age=60".utf8)) == .expires(at: 1_000_060))
        // A megabyte-long name with a stray byte at its end.
        let name = [UInt8](repeating: UInt8(ascii: "a"), count: megabyte)
        let shown = String(repeating: "a", count: 80)
        #expect(throws: invalid("Cache-Control: unexpected ';' at byte \(megabyte) ('\(shown)… (\(megabyte + 1) bytes)'): directives are separated by commas")) {
            try evaluate(bytes: name + [UInt8(ascii: ";")])
        }
        // A quoted string that never ends.
        let open = Array("x=\"".utf8) + name
        #expect(throws: invalid("Cache-Control: unterminated quoted string at byte 2 ('x=\"\(shown.dropLast(3))… (\(megabyte + 3) bytes)'): it needs a closing '\"'")) {
            try evaluate(bytes: open)
        }
        // A megabyte of spaces before a malformed max-age.
        let spaces = [UInt8](repeating: UInt8(ascii: " "), count: megabyte)
        #expect(throws: invalid("Cache-Control: malformed max-age at byte \(megabyte + 8) ('max-age=-1'): it needs a whole number of seconds")) {
            try evaluate(bytes: spaces + Array("max-age=-1".utf8) + spaces)
        }
        // A megabyte of NUL bytes.
        #expect(throws: invalid("Cache-Control: malformed directive at byte 0 ('\(String(repeating: "\\x00", count: 80))… (\(megabyte) bytes)'): a directive starts with a name of letters, digits and !#$%&'*+-.^_`|~")) {
            try evaluate(bytes: [UInt8](repeating: 0, count: megabyte))
        }
    }

    // MARK: - Malformed Age and Date

    @Test func malformedAgeNamesTheByte() {
        let cases: [(String, String)] = [
            ("abc", "Age: malformed value at byte 0 ('abc'): it needs a whole number of seconds"),
            ("-5", "Age: malformed value at byte 0 ('-5'): it needs a whole number of seconds"),
            (" 12a ", "Age: malformed value at byte 3 ('12a'): it needs a whole number of seconds"),
            ("1e3", "Age: malformed value at byte 1 ('1e3'): it needs a whole number of seconds"),
            ("5 6", "Age: malformed value at byte 1 ('5 6'): it needs a whole number of seconds"),
            ("\"5\"", "Age: malformed value at byte 0 ('\"5\"'): it needs a whole number of seconds"),
            ("abc, 5", "Age: malformed value at byte 0 ('abc'): it needs a whole number of seconds"),
            (", x5, 5", "Age: malformed value at byte 2 ('x5'): it needs a whole number of seconds"),
            ("1.5", "Age: malformed value at byte 1 ('1.5'): it needs a whole number of seconds"),
        ]
        for (age, message) in cases {
            #expect(throws: invalid(message), "\(age)") { try evaluate("max-age=60", age: age) }
            #expect(throws: invalid(message), "\(age)") { try evaluate(age: age) }
        }
        #expect(throws: invalid("Age: malformed value at byte 1 ('1\\x002'): it needs a whole number of seconds")) {
            try evaluate(bytes: nil, age: [UInt8(ascii: "1"), 0, UInt8(ascii: "2")])
        }
        #expect(throws: invalid("Age: malformed value at byte 0 ('\\xFF'): it needs a whole number of seconds")) {
            try evaluate(bytes: nil, age: [0xFF])
        }
        let huge = [UInt8](repeating: UInt8(ascii: "1"), count: 1 << 20) + [UInt8(ascii: "x")]
        #expect(throws: invalid("Age: malformed value at byte \(1 << 20) ('\(String(repeating: "1", count: 80))… (\((1 << 20) + 1) bytes)'): it needs a whole number of seconds")) {
            try evaluate(bytes: nil, age: huge)
        }
    }

    @Test func malformedDateIsAnError() {
        let hint = "a date is written as 'Sun, 06 Nov 1994 08:49:37 GMT'"
        let cases: [(String, String)] = [
            ("yesterday", "Date: malformed HTTP date at byte 0 ('yesterday'): \(hint)"),
            ("  0", "Date: malformed HTTP date at byte 2 ('0'): \(hint)"),
            ("Mon, 29 Feb 1900 00:00:00 GMT", "Date: malformed HTTP date at byte 0 ('Mon, 29 Feb 1900 00:00:00 GMT'): \(hint)"),
            ("Sun, 06 Nov 1994 08:49:37 UTC", "Date: malformed HTTP date at byte 0 ('Sun, 06 Nov 1994 08:49:37 UTC'): \(hint)"),
            ("\tSun, 06 Nov 1994 08:49:37 GMT, x", "Date: malformed HTTP date at byte 1 ('Sun, 06 Nov 1994 08:49:37 GMT, x'): \(hint)"),
        ]
        for (date, message) in cases {
            #expect(throws: invalid(message), "\(date)") { try evaluate("max-age=60", date: date) }
            #expect(throws: invalid(message), "\(date)") { try evaluate(date: date, expires: Self.dateAfter600) }
        }
        #expect(throws: invalid("Date: malformed HTTP date at byte 0 ('Sun, 06 Nov 1994 08:49:37 GMT\\x00'): \(hint)")) {
            try evaluate(bytes: nil, date: Array("Sun, 06 Nov 1994 08:49:37 GMT".utf8) + [0])
        }
    }

    @Test func cacheControlIsCheckedFirstThenAgeThenDate() {
        #expect(throws: invalid("Cache-Control: malformed directive at byte 0 ('=5'): a directive starts with a name of letters, digits and !#$%&'*+-.^_`|~")) {
            try evaluate("=5", age: "x", date: "x")
        }
        #expect(throws: invalid("Age: malformed value at byte 0 ('x'): it needs a whole number of seconds")) {
            try evaluate("max-age=5", age: "x", date: "x")
        }
    }
}
