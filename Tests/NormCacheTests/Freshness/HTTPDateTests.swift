import Testing
@testable import NormCache

/// HTTP dates (RFC 9110 §5.6.7): the three formats, exact seconds, the calendar, the
/// two-digit year, and everything that is not a date.
@Suite struct HTTPDateTests {
    /// 2023-11-14 22:13:20 UTC, the "now" of the two-digit years.
    static let now: Int64 = 1_700_000_000

    func parse(_ text: String, now: Int64 = HTTPDateTests.now) -> Int64? {
        text.withUTF8Bytes { HTTPDate.parse($0, now: now) }
    }

    func parse(bytes: [UInt8], now: Int64 = HTTPDateTests.now) -> Int64? {
        bytes.withBytes { HTTPDate.parse($0, now: now) }
    }

    @Test func theRFCExampleInAllThreeFormats() {
        #expect(parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(parse("Sun Nov  6 08:49:37 1994") == 784_111_777)
        #expect(parse("Sun Nov 06 08:49:37 1994") == 784_111_777)
    }

    @Test func exactSecondsAcrossTheCalendar() {
        #expect(parse("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(parse("Wed, 31 Dec 1969 23:59:59 GMT") == -1)
        #expect(parse("Mon, 01 Jan 0001 00:00:00 GMT") == -62_135_596_800)
        #expect(parse("Fri, 31 Dec 9999 23:59:59 GMT") == 253_402_300_799)
        #expect(parse("Tue, 14 Nov 2023 22:13:20 GMT") == 1_700_000_000)
        #expect(parse("Thu Feb 29 12:00:00 2024") == 1_709_208_000)
        #expect(parse("Tuesday, 29-Feb-00 00:00:00 GMT") == 951_782_400)
    }

    @Test func leapDaysFollowTheGregorianRule() {
        #expect(parse("Tue, 29 Feb 2000 00:00:00 GMT") == 951_782_400)
        #expect(parse("Tue, 29 Feb 1600 00:00:00 GMT") == -11_670_998_400)
        // 1900 and 2100 are not leap years: no weekday makes their 29 February a date.
        for day in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] {
            #expect(parse("\(day), 29 Feb 1900 00:00:00 GMT") == nil)
            #expect(parse("\(day), 29 Feb 2100 00:00:00 GMT") == nil)
            #expect(parse("\(day), 29 Feb 2023 00:00:00 GMT") == nil)
            #expect(parse("\(day) Feb 29 00:00:00 1900") == nil)
        }
        #expect(parse("Mon, 01 Mar 2100 00:00:00 GMT") == 4_107_542_400)
    }

    @Test func everyDayFrom1899To2101InEveryFormatAndNoDayBeyondItsMonth() {
        // A running count of days and weekdays against the parsed seconds: any error of
        // the calendar arithmetic shifts every later date.
        let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var seconds: Int64 = -2_240_524_800  // 1899-01-01 00:00:00, a Sunday
        var weekday = 6
        var checked = 0
        for year in 1899...2101 {
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            for (index, month) in months.enumerated() {
                let length = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][index]
                for day in 1...31 {
                    let imf = "\(days[weekday]), \(two(day)) \(month) \(year) 07:08:09 GMT"
                    let asctime = "\(days[weekday]) \(month) \(day < 10 ? " \(day)" : "\(day)") 07:08:09 \(year)"
                    let rfc850 = "\(longDays[weekday]), \(two(day))-\(month)-\(two(year % 100)) 07:08:09 GMT"
                    // The two-digit year resolved around a "now" in the same year.
                    let sameYear = seconds - 86_400 * 30
                    guard day <= length else {
                        #expect(parse(imf) == nil, "\(imf)")
                        #expect(parse(asctime) == nil, "\(asctime)")
                        #expect(parse(rfc850, now: sameYear) == nil, "\(rfc850)")
                        continue
                    }
                    let expected = seconds + 7 * 3600 + 8 * 60 + 9
                    if parse(imf) != expected || parse(asctime) != expected || parse(rfc850, now: sameYear) != expected {
                        Issue.record("\(imf) / \(asctime) / \(rfc850): \(String(describing: parse(imf))), expected \(expected)")
                    }
                    // Any other day name is refused.
                    #expect(parse("\(days[(weekday + 1) % 7]), \(two(day)) \(month) \(year) 07:08:09 GMT") == nil)
                    seconds += 86_400
                    weekday = (weekday + 1) % 7
                    checked += 1
                }
            }
        }
        #expect(checked == 74_144)
    }

    @Test func daysAndCivilDatesAreInverse() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 1) {
            let date = HTTPDate.civil(days: days)
            guard HTTPDate.days(year: date.year, month: date.month, day: date.day) == days else {
                Issue.record("day \(days) → \(date) does not come back")
                return
            }
        }
        #expect(HTTPDate.civil(days: 0) == (1970, 1, 1))
        #expect(HTTPDate.civil(days: -1) == (1969, 12, 31))
        #expect(HTTPDate.civil(days: 11_016) == (2000, 2, 29))
    }

    @Test func twoDigitYearsAreAtMostFiftyYearsAhead() {
        // now is 2023-11-14 22:13:20: the limit is 2073-11-14 22:13:20.
        #expect(parse("Tuesday, 14-Nov-73 22:13:20 GMT") == 3_277_923_200)
        #expect(parse("Wednesday, 14-Nov-73 22:13:21 GMT") == 122_163_201)
        #expect(parse("Tuesday, 14-Nov-73 22:13:21 GMT") == nil)  // 2073-11-14 22:13:21 would be more than 50 years ahead
        #expect(parse("Wednesday, 01-Jan-70 00:00:00 GMT") == 3_155_760_000)  // 2070
        #expect(parse("Thursday, 01-Jan-70 00:00:00 GMT") == nil)  // 1970 was a Thursday, but 2070 is meant
        #expect(parse("Sunday, 01-Jan-23 00:00:00 GMT") == 1_672_531_200)
        #expect(parse("Friday, 31-Dec-99 23:59:59 GMT") == 946_684_799)
        // In 1994 the same text is 1994, and in 2100 a "99" is 2099.
        #expect(parse("Sunday, 06-Nov-94 08:49:37 GMT", now: 784_111_777) == 784_111_777)
        #expect(parse("Thursday, 31-Dec-99 23:59:59 GMT", now: 4_102_444_800) == 4_102_444_799)
        // Extreme clocks: the year 292277026594 still fits in seconds since 1970 (and
        // its 6 November is a Thursday); the year -292277022706 does not, and gives nil.
        #expect(parse("Thursday, 06-Nov-94 08:49:37 GMT", now: .max) == 9_223_372_036_789_174_177)
        #expect(parse("Friday, 06-Nov-94 08:49:37 GMT", now: .min) == nil)
    }

    @Test func spacesAndTabsAroundAreAllowed() {
        #expect(parse("  \tSun, 06 Nov 1994 08:49:37 GMT \t ") == 784_111_777)
        #expect(parse("\tSunday, 06-Nov-94 08:49:37 GMT ") == 784_111_777)
        #expect(parse(" Sun Nov  6 08:49:37 1994\t") == 784_111_777)
    }

    @Test func theLimitsOfEachField() {
        #expect(parse("Sat, 31 Dec 2016 23:59:60 GMT") == 1_483_228_800)  // a leap second
        #expect(parse("Sat, 31 Dec 2016 23:59:61 GMT") == nil)
        #expect(parse("Sun, 06 Nov 1994 24:00:00 GMT") == nil)
        #expect(parse("Sun, 06 Nov 1994 23:60:00 GMT") == nil)
        #expect(parse("Sun, 00 Nov 1994 08:49:37 GMT") == nil)
        #expect(parse("Sun, 31 Nov 1994 08:49:37 GMT") == nil)
        #expect(parse("Sun, 32 Nov 1994 08:49:37 GMT") == nil)
        #expect(parse("Sun Nov  0 08:49:37 1994") == nil)
    }

    @Test func anythingElseIsNotADate() {
        let refused = [
            "", " ", "\t\t", "0", "-1", "now", "Sun", "Sun,",
            "sun, 06 Nov 1994 08:49:37 GMT",  // names are case-sensitive
            "SUN, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 gmt",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 08:49:37 +0000",
            "Sun, 06 Nov 1994 08:49:37",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun,  6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 1994 08:49 GMT",
            "Sun, 06 Nov 1994  08:49:37 GMT",
            "Sun 06 Nov 1994 08:49:37 GMT",
            "Sun, 06-Nov-1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT,",
            "Sun, 06 Nov 1994 08:49:37 GMTx",
            "Sun, 06 Nov 1994 08.49.37 GMT",
            "Sun, 06 Nov 1994 08:49:3x GMT",
            "Sun, 06 Nov 199x 08:49:37 GMT",
            "Sun, 06 Nov +994 08:49:37 GMT",
            "Sunday, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06-Nov-94 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37",
            "Sunday, 6-Nov-94 08:49:37 GMT",
            "Sunday,06-Nov-94 08:49:37 GMT",
            "Sunday, 06-Nov-994 08:49:37 GMT",
            "Sunday, 06 Nov 94 08:49:37 GMT",
            "Sun Nov 6 08:49:37 1994",
            "Sun Nov   6 08:49:37 1994",
            "Sun Nov  6 08:49:37 94",
            "Sun Nov  6 08:49:37 1994 GMT",
            "Sun  Nov  6 08:49:37 1994",
            "Sun, Nov  6 08:49:37 1994",
            "Sunday Nov  6 08:49:37 1994",
            "1994-11-06T08:49:37Z",
            "784111777",
        ]
        for text in refused { #expect(parse(text) == nil, "\(text)") }
    }

    @Test func hostileBytesAreNotADate() {
        let date = Array("Sun, 06 Nov 1994 08:49:37 GMT".utf8)
        #expect(parse(bytes: date) == 784_111_777)
        for position in date.indices {
            for byte: UInt8 in [0x00, 0xFF, 0xC3, 0x0A] {
                var hostile = date
                hostile[position] = byte
                #expect(parse(bytes: hostile) == nil, "\(byte) at \(position)")
            }
        }
        #expect(parse(bytes: date + [0]) == nil)
        #expect(parse(bytes: [0] + date) == nil)
        #expect(parse(bytes: Array("Sun, 06 Nov 1994 08:49:37 GMT\r\n".utf8)) == nil)
        #expect(parse(bytes: Array("Sun, 06 Nov 1994 08:49:37 G\u{D6}T".utf8)) == nil)
        #expect(parse(bytes: [UInt8](repeating: 0x20, count: 1 << 20)) == nil)
        #expect(parse(bytes: date + [UInt8](repeating: 0x41, count: 1 << 20)) == nil)
        #expect(parse(bytes: [UInt8](repeating: 0x20, count: 1 << 20) + date + [UInt8](repeating: 0x09, count: 1 << 20)) == 784_111_777)
        #expect(HTTPDate.parse(UnsafeRawBufferPointer(start: nil, count: 0), now: 0) == nil)
    }
}
