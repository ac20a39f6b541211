/// What a response's caching headers say about the data it carries (RFC 9111, for a private cache).
///
/// `evaluate` reads four header values, each given as its raw bytes (nil: the header is
/// absent; a value that is empty or only spaces and tabs counts as absent too). Several
/// lines of one header are passed joined by commas, as RFC 9110 §5.3 combines them.
///
/// **Cache-Control** is a list of directives `name` or `name=value`, separated by commas,
/// with optional spaces and tabs around the commas; empty elements (`, ,`) are allowed
/// and mean nothing. A name is a token (letters, digits and ``!#$%&'*+-.^_`|~``) and is
/// matched without regard to case; a value is a token or a quoted string (`"…"`, where
/// `\` quotes the next character). No space is allowed around `=`.
///
/// - `no-store`: the result is `.noStore`, whatever else the headers say.
/// - `no-cache` (with or without a value): stale at once, `.expires(at: now)` — the data
///   must be revalidated before it is used. A qualified `no-cache="field"` is treated as
///   plain `no-cache`, as most caches do.
/// - `max-age=N`: the data's lifetime is N seconds. N is one or more digits, plain or
///   quoted (`max-age="60"`); a value above 2147483648 is read as 2147483648 (RFC 9111
///   §1.2.2). `max-age=0` is stale at once. `max-age` given twice with different values
///   (compared after that limit, so `060` and `60` are one value) is stale at once
///   (RFC 9111 §4.2.1); given twice with one value it counts once.
/// - Every other directive — `s-maxage`, `private`, `public`, `must-revalidate`,
///   `proxy-revalidate`, `immutable`, `no-transform`, `must-understand`,
///   `stale-while-revalidate`, `stale-if-error`, and any extension — is ignored: this is a
///   private cache, and RFC 9111 §5.2 says unknown directives must be ignored. Their
///   syntax is checked all the same, as a name and an optional token or quoted string
///   (so `s-maxage=abc` passes, `s-maxage=` does not).
///
/// Malformed syntax is an error, never ignored: a directive that does not start with a
/// name, `max-age` without a value or with one that is not digits only (`max-age=-1`,
/// `max-age=1e3`, `max-age=`), `=` followed by neither a token nor a quoted string, a
/// quoted string without its closing quote or with a control byte in it, and anything but
/// spaces, tabs or a comma after a directive. The error is `.invalidArgument`, and its
/// message names the header, the problem, the byte offset in the value and the
/// directive as written: `Cache-Control: malformed max-age at byte 8 ('max-age=abc'): it
/// needs a whole number of seconds`. Bytes other than printable ASCII are shown as
/// `\xHH`, and a quote is cut after 80 bytes.
///
/// **Age** is a number of seconds, digits only, with optional spaces and tabs around it
/// (read up to 2147483648 like `max-age`). A list (`Age: 5, 10`) counts by its first
/// member (RFC 9111 §5.1): empty members are skipped and the members after the first are
/// not read. Anything else is an `Age:` error (`Age: malformed value at byte 0 ('abc'):
/// it needs a whole number of seconds`); a value of only commas counts as absent.
///
/// **Date** is an HTTP-date in one of the three formats `HTTPDate` reads, strictly (the
/// day name must be the date's weekday); anything else is a `Date:` error (`Date:
/// malformed HTTP date at byte 0 ('yesterday'): a date is written as 'Sun, 06 Nov 1994
/// 08:49:37 GMT'`).
///
/// **Expires** is an HTTP-date too, used only when there is no `max-age`. A value that is
/// not a valid date — `0` most often — means the data has already expired (RFC 9111
/// §5.3): stale at once, not an error.
///
/// **The result** follows RFC 9111 §4.2.3 at the moment of receipt (no response delay):
///
///     apparent_age = max(0, now − Date)            (0 without Date)
///     current_age  = max(apparent_age, Age)        (Age 0 without Age)
///     lifetime     = max-age, or else Expires − Date (Expires − now without Date)
///     result       = .expires(at: now + lifetime − current_age)
///
/// A result at or before `now` is given as `.expires(at: now)`, so stale at once has one
/// form. Without `no-store`, `no-cache`, `max-age` or `Expires` the result is
/// `.unspecified`, whatever Age and Date say. Every step saturates at the bounds of
/// `Int64` instead of overflowing.
///
/// Cache-Control, Age and Date are all checked, in that order, before any of them is
/// applied: a malformed Date is an error even beside `no-store`.
enum ServerFreshness: Equatable, Sendable {
    /// No header sets a lifetime: the cache's max-age rules alone decide.
    case unspecified
    /// `Cache-Control: no-store`: the response must not be written.
    case noStore
    /// The data is fresh until `at` (seconds since 1970); `at <= now` means stale at once.
    case expires(at: Int64)

    /// The largest delta-seconds value (RFC 9111 §1.2.2): larger ones are read as this.
    static let deltaSecondsLimit: Int64 = 2_147_483_648

    /// Evaluates the raw header values (nil: header absent) at `now` (seconds since 1970, the time the response is written).
    static func evaluate(cacheControl: UnsafeRawBufferPointer?, age: UnsafeRawBufferPointer?,
                         date: UnsafeRawBufferPointer?, expires: UnsafeRawBufferPointer?,
                         now: Int64) throws(NormCacheError) -> ServerFreshness {
        var directives = CacheDirectives()
        if let cacheControl { try directives.read(cacheControl) }
        let ageSeconds = try age.flatMap { (age) throws(NormCacheError) in try Self.ageSeconds(age) }
        let dateSeconds = try date.flatMap { (date) throws(NormCacheError) in try Self.dateSeconds(date, now: now) }

        if directives.noStore { return .noStore }
        if directives.noCache || directives.conflictingMaxAge { return .expires(at: now) }
        let lifetime: Int64
        if let maxAge = directives.maxAge {
            lifetime = maxAge
        } else if let expires, HeaderText.trimmed(expires) != nil {
            guard let expiresSeconds = HTTPDate.parse(expires, now: now) else {
                return .expires(at: now)
            }
            lifetime = saturating(expiresSeconds, minus: dateSeconds ?? now)
        } else {
            return .unspecified
        }
        let apparentAge = dateSeconds.map { max(0, saturating(now, minus: $0)) } ?? 0
        let currentAge = max(apparentAge, ageSeconds ?? 0)
        let at = saturating(saturating(now, plus: lifetime), minus: currentAge)
        return .expires(at: max(at, now))
    }

    /// The seconds of an `Age` value (its first list member), nil when it has none.
    private static func ageSeconds(_ text: UnsafeRawBufferPointer) throws(NormCacheError) -> Int64? {
        var start = 0
        while start < text.count, HTTPDate.isSpaceOrTab(text[start]) || text[start] == UInt8(ascii: ",") { start += 1 }
        guard start < text.count else { return nil }
        var end = start
        while end < text.count, text[end] != UInt8(ascii: ",") { end += 1 }
        while HTTPDate.isSpaceOrTab(text[end - 1]) { end -= 1 }
        var seconds: Int64 = 0
        for position in start..<end {
            let digit = text[position] &- UInt8(ascii: "0")
            guard digit < 10 else {
                throw HeaderText.error("Age", "malformed value", at: position, quoting: text[start..<end], "it needs a whole number of seconds")
            }
            seconds = min(seconds * 10 + Int64(digit), deltaSecondsLimit)
        }
        return seconds
    }

    /// The seconds since 1970 of a `Date` value, nil when it is empty.
    private static func dateSeconds(_ text: UnsafeRawBufferPointer, now: Int64) throws(NormCacheError) -> Int64? {
        guard let trimmed = HeaderText.trimmed(text) else { return nil }
        guard let seconds = HTTPDate.parse(text, now: now) else {
            throw HeaderText.error("Date", "malformed HTTP date", at: trimmed.lowerBound, quoting: text[trimmed],
                                   "a date is written as 'Sun, 06 Nov 1994 08:49:37 GMT'")
        }
        return seconds
    }

    private static func saturating(_ left: Int64, plus right: Int64) -> Int64 {
        let (sum, overflow) = left.addingReportingOverflow(right)
        return overflow ? (right > 0 ? .max : .min) : sum
    }

    private static func saturating(_ left: Int64, minus right: Int64) -> Int64 {
        let (difference, overflow) = left.subtractingReportingOverflow(right)
        return overflow ? (right < 0 ? .max : .min) : difference
    }
}

/// The directives of a `Cache-Control` value that a private cache acts on.
private struct CacheDirectives {
    var noStore = false
    var noCache = false
    /// The first `max-age`, in seconds (up to `deltaSecondsLimit`).
    var maxAge: Int64?
    /// Whether a later `max-age` had another value.
    var conflictingMaxAge = false

    /// Reads a `Cache-Control` value, adding its directives; throws at malformed syntax.
    mutating func read(_ bytes: UnsafeRawBufferPointer) throws(NormCacheError) {
        let count = bytes.count
        var position = 0
        while true {
            while position < count, HTTPDate.isSpaceOrTab(bytes[position]) || bytes[position] == UInt8(ascii: ",") { position += 1 }
            guard position < count else { return }
            let element = position
            while position < count, HeaderText.isTokenByte(bytes[position]) { position += 1 }
            let name = element..<position
            guard !name.isEmpty else {
                throw Self.error(bytes, element, at: element, "malformed directive",
                                 "a directive starts with a name of letters, digits and !#$%&'*+-.^_`|~")
            }
            let isMaxAge = HeaderText.equalsIgnoringCase(bytes[name], "max-age")
            var value: Range<Int>?
            if position < count, bytes[position] == UInt8(ascii: "=") {
                position += 1
                value = try Self.value(bytes, element, at: &position, of: name, isMaxAge: isMaxAge)
            }
            if isMaxAge {
                let seconds = try Self.seconds(bytes, element, value ?? position..<position)
                if let maxAge { conflictingMaxAge = conflictingMaxAge || maxAge != seconds } else { maxAge = seconds }
            } else if HeaderText.equalsIgnoringCase(bytes[name], "no-store") {
                noStore = true
            } else if HeaderText.equalsIgnoringCase(bytes[name], "no-cache") {
                noCache = true
            }
            while position < count, HTTPDate.isSpaceOrTab(bytes[position]) { position += 1 }
            guard position == count || bytes[position] == UInt8(ascii: ",") else {
                throw Self.error(bytes, element, at: position, "unexpected \(HeaderText.describe(bytes[position]))",
                                 "directives are separated by commas")
            }
        }
    }

    /// Reads the value after `=` at `position`: a token, or a quoted string (its quotes included).
    private static func value(_ bytes: UnsafeRawBufferPointer, _ element: Int, at position: inout Int, of name: Range<Int>,
                              isMaxAge: Bool) throws(NormCacheError) -> Range<Int> {
        let start = position
        let count = bytes.count
        guard position < count, bytes[position] == UInt8(ascii: "\"") else {
            while position < count, HeaderText.isTokenByte(bytes[position]) { position += 1 }
            guard position > start || isMaxAge else {
                throw error(bytes, element, at: start, "malformed \(HeaderText.quote(bytes[name]))",
                            "'=' must be followed by a token or a quoted string")
            }
            return start..<position
        }
        position += 1
        while true {
            guard position < count else {
                throw error(bytes, element, at: start, "unterminated quoted string", "it needs a closing '\"'")
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                position += 1
                guard position < count else {
                    throw error(bytes, element, at: start, "unterminated quoted string", "it needs a closing '\"'")
                }
            }
            guard HeaderText.isQuotedTextByte(bytes[position]) else {
                throw error(bytes, element, at: position, "malformed quoted string",
                            "control byte \(HeaderText.hex(bytes[position])) is not allowed in a quoted string")
            }
            position += 1
        }
        position += 1
        return start..<position
    }

    /// The seconds of a `max-age` value (digits, plain or quoted), up to `deltaSecondsLimit`.
    private static func seconds(_ bytes: UnsafeRawBufferPointer, _ element: Int, _ value: Range<Int>) throws(NormCacheError) -> Int64 {
        func malformed(at offset: Int) -> NormCacheError {
            error(bytes, element, at: offset, "malformed max-age", "it needs a whole number of seconds")
        }
        var position = value.lowerBound
        var end = value.upperBound
        if position < end, bytes[position] == UInt8(ascii: "\"") {
            position += 1
            end -= 1
        }
        guard position < end else { throw malformed(at: position) }
        var seconds: Int64 = 0
        while position < end {
            if bytes[position] == UInt8(ascii: "\\") { position += 1 }
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { throw malformed(at: position) }
            seconds = min(seconds * 10 + Int64(digit), ServerFreshness.deltaSecondsLimit)
            position += 1
        }
        return seconds
    }

    /// A `Cache-Control` error at `offset`, quoting the directive that starts at `element`.
    private static func error(_ bytes: UnsafeRawBufferPointer, _ element: Int, at offset: Int, _ problem: String,
                              _ hint: String) -> NormCacheError {
        HeaderText.error("Cache-Control", problem, at: offset, quoting: bytes[element..<elementEnd(bytes, element)], hint)
    }

    /// Where the directive that starts at `element` ends: at the next comma outside a
    /// quoted string, or the end, without trailing spaces and tabs.
    private static func elementEnd(_ bytes: UnsafeRawBufferPointer, _ element: Int) -> Int {
        var position = element
        var quoted = false
        while position < bytes.count {
            let byte = bytes[position]
            if quoted, byte == UInt8(ascii: "\\") {
                position += 1
            } else if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if !quoted, byte == UInt8(ascii: ",") {
                break
            }
            position += 1
        }
        position = min(position, bytes.count)
        while position > element, HTTPDate.isSpaceOrTab(bytes[position - 1]) { position -= 1 }
        return position
    }
}

/// Bytes of header values: their classes (RFC 9110 §5.6) and how messages show them.
private enum HeaderText {
    /// The range of `text` without leading and trailing spaces and tabs; nil when nothing is left.
    static func trimmed(_ text: UnsafeRawBufferPointer) -> Range<Int>? {
        var start = 0
        var end = text.count
        while start < end, HTTPDate.isSpaceOrTab(text[start]) { start += 1 }
        while end > start, HTTPDate.isSpaceOrTab(text[end - 1]) { end -= 1 }
        return start < end ? start..<end : nil
    }

    /// tchar: `!#$%&'*+-.^_`|~`, digits and letters.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A byte a quoted string may hold, as itself or after `\`: a tab, a space, visible
    /// ASCII or obs-text (0x80–0xFF); not the other control bytes.
    static func isQuotedTextByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte != 0x7F)
    }

    /// Whether `bytes` spell `name` (lowercase ASCII) in any case.
    static func equalsIgnoringCase(_ bytes: Slice<UnsafeRawBufferPointer>, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { expected in
            for (offset, byte) in bytes.enumerated() {
                let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                if lowered != expected[offset] { return false }
            }
            return true
        }
    }

    /// The `.invalidArgument` error of a malformed header value:
    /// `<header>: <problem> at byte <offset> ('<quoted bytes>'): <hint>`.
    static func error(_ header: String, _ problem: String, at offset: Int, quoting bytes: Slice<UnsafeRawBufferPointer>,
                      _ hint: String) -> NormCacheError {
        NormCacheError(.invalidArgument, "\(header): \(problem) at byte \(offset) ('\(quote(bytes))'): \(hint)")
    }

    /// Header bytes for a message: printable ASCII as itself, any other byte as `\xHH`,
    /// cut after 80 bytes with the length said.
    static func quote(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        var text = ""
        for byte in bytes.prefix(80) {
            if byte >= 0x20, byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + hex(byte).dropFirst(2)
            }
        }
        return bytes.count > 80 ? "\(text)… (\(bytes.count) bytes)" : text
    }

    /// A byte named in a message: `';'` when printable, else `0x00`.
    static func describe(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "'\(Unicode.Scalar(byte))'" : hex(byte)
    }

    /// `0x` and two uppercase hex digits.
    static func hex(_ byte: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        return "0x" + String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
