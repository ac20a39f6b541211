/// HTTP dates (RFC 9110 §5.6.7) read from bytes, as seconds since 1970 (UTC), without
/// Foundation.
///
/// The three formats a recipient must accept, and only those:
///
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
/// - RFC 850 (obsolete): `Sunday, 06-Nov-94 08:49:37 GMT`
/// - asctime: `Sun Nov  6 08:49:37 1994` (a day below 10 as a space and one digit, or
///   as two digits)
///
/// Reading is strict: names are case-sensitive as RFC 9110 spells them (`Sun`, `Sunday`,
/// `Nov`, `GMT`); every field has its exact width and separators; hours run 00–23,
/// minutes 00–59, seconds 00–60 (a leap second, read as the first second of the next
/// minute); the day must exist in its month (29 February only in a leap year of the
/// Gregorian calendar) and the day name must be the weekday of that date (RFC 5322
/// §3.3, of which IMF-fixdate is a subset). Spaces and tabs before and after the date
/// are allowed; anything else gives nil.
///
/// The two-digit year of an RFC 850 date is read as RFC 9110 asks: a date that would be
/// more than 50 years after `now` is put in the most recent past year with the same two
/// last digits. So the year is the latest one ending in those digits that does not put
/// the date more than 50 years (in calendar terms: same month, day and time of day)
/// after `now`.
enum HTTPDate {
    /// The seconds since 1970 (UTC) of the HTTP date in `text`, or nil when it is not one.
    /// `now` (seconds since 1970) places the two-digit year of an RFC 850 date.
    static func parse(_ text: UnsafeRawBufferPointer, now: Int64) -> Int64? {
        var start = 0
        var end = text.count
        while start < end, isSpaceOrTab(text[start]) { start += 1 }
        while end > start, isSpaceOrTab(text[end - 1]) { end -= 1 }
        var reader = DateReader(bytes: text, position: start, end: end)
        let length = end - start
        // The three formats differ at the fourth byte: ',' (IMF-fixdate), ' ' (asctime),
        // a letter (the long day name of RFC 850).
        guard length >= 4 else { return nil }
        switch text[start + 3] {
        case UInt8(ascii: ","): return length == 29 ? reader.imfFixdate() : nil
        case UInt8(ascii: " "): return length == 24 ? reader.asctime() : nil
        default: return reader.rfc850(now: now)
        }
    }

    /// The days from 1970-01-01 to the given date of the proleptic Gregorian calendar
    /// (negative before), for `month` 1–12 and `day` 1–31 (H. Hinnant's days_from_civil).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of the proleptic Gregorian calendar `days` days after 1970-01-01
    /// (H. Hinnant's civil_from_days).
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Whether `year` has a 29 February.
    static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days of `month` (1–12) in `year`.
    static func daysInMonth(_ month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `value` divided by `divisor` (positive), rounded down.
    static func floorDivide(_ value: Int64, by divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    /// The remainder of `value` divided by `divisor` (positive), from 0 to `divisor − 1`.
    static func floorModulo(_ value: Int64, _ divisor: Int64) -> Int64 {
        let remainder = value % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }

    static func isSpaceOrTab(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    fileprivate static let dayNames: [StaticString] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    fileprivate static let longDayNames: [StaticString] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    fileprivate static let monthNames: [StaticString] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

/// The fields of a date as read, before they are checked against the calendar.
private struct DateFields {
    var weekday: Int  // 0 is Monday
    var year: Int64
    var month: Int64
    var day: Int64
    var secondOfDay: Int64

    /// The seconds since 1970, when the day exists in its month and has the weekday named.
    var seconds: Int64? {
        guard day >= 1, day <= HTTPDate.daysInMonth(month, of: year) else { return nil }
        let days = HTTPDate.days(year: year, month: month, day: day)
        // 1970-01-01 was a Thursday (3, counting from Monday).
        let actualWeekday = Int(HTTPDate.floorModulo(days + 3, 7))
        guard actualWeekday == weekday else { return nil }
        let (daySeconds, overflow) = days.multipliedReportingOverflow(by: 86_400)
        guard !overflow else { return nil }
        let (total, overflowAgain) = daySeconds.addingReportingOverflow(secondOfDay)
        return overflowAgain ? nil : total
    }
}

/// Reads the fields of one date format from `bytes[position..<end]`; every read checks
/// its bounds and returns nil when the bytes are not what the format has there.
private struct DateReader {
    let bytes: UnsafeRawBufferPointer
    var position: Int
    let end: Int

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    mutating func imfFixdate() -> Int64? {
        guard let weekday = name(HTTPDate.dayNames), literal(", "), let day = number(digits: 2), literal(" "),
              let month = name(HTTPDate.monthNames), literal(" "), let year = number(digits: 4), literal(" "),
              let time = timeOfDay(), literal(" GMT"), position == end
        else { return nil }
        return DateFields(weekday: weekday, year: year, month: Int64(month + 1), day: day, secondOfDay: time).seconds
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    mutating func rfc850(now: Int64) -> Int64? {
        guard let weekday = name(HTTPDate.longDayNames), literal(", "), let day = number(digits: 2), literal("-"),
              let monthIndex = name(HTTPDate.monthNames), literal("-"), let shortYear = number(digits: 2), literal(" "),
              let time = timeOfDay(), literal(" GMT"), position == end
        else { return nil }
        // The latest year ending in `shortYear` whose date is not more than 50 years after now.
        let nowDays = HTTPDate.floorDivide(now, by: 86_400)
        let nowSecond = HTTPDate.floorModulo(now, 86_400)
        let today = HTTPDate.civil(days: nowDays)
        let limit = today.year + 50
        var year = limit - HTTPDate.floorModulo(limit - shortYear, 100)
        let month = Int64(monthIndex + 1)
        if year == limit, (month, day, time) > (today.month, today.day, nowSecond) { year -= 100 }
        return DateFields(weekday: weekday, year: year, month: month, day: day, secondOfDay: time).seconds
    }

    /// `Sun Nov  6 08:49:37 1994`
    mutating func asctime() -> Int64? {
        guard let weekday = name(HTTPDate.dayNames), literal(" "), let month = name(HTTPDate.monthNames), literal(" ") else {
            return nil
        }
        let day: Int64
        if literal(" ") {
            guard let digit = number(digits: 1) else { return nil }
            day = digit
        } else {
            guard let digits = number(digits: 2) else { return nil }
            day = digits
        }
        guard literal(" "), let time = timeOfDay(), literal(" "), let year = number(digits: 4), position == end else { return nil }
        return DateFields(weekday: weekday, year: year, month: Int64(month + 1), day: day, secondOfDay: time).seconds
    }

    /// `08:49:37` as seconds since midnight (23:59:60 is 86400).
    private mutating func timeOfDay() -> Int64? {
        guard let hour = number(digits: 2), hour <= 23, literal(":"), let minute = number(digits: 2), minute <= 59, literal(":"),
              let second = number(digits: 2), second <= 60
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    /// Exactly `digits` ASCII digits.
    private mutating func number(digits: Int) -> Int64? {
        guard end - position >= digits else { return nil }
        var value: Int64 = 0
        for offset in 0..<digits {
            let digit = bytes[position + offset] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        position += digits
        return value
    }

    /// The index in `names` of the name at the position, matched case-sensitively.
    private mutating func name(_ names: [StaticString]) -> Int? {
        for (index, name) in names.enumerated() where literal(name) { return index }
        return nil
    }

    /// Reads `text` when the bytes at the position are exactly it.
    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard end - position >= count else { return false }
        let matches = text.withUTF8Buffer { expected in
            for offset in 0..<count where bytes[position + offset] != expected[offset] { return false }
            return true
        }
        if matches { position += count }
        return matches
    }
}
