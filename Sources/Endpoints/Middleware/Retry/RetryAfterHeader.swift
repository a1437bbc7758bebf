import Foundation

/// Reads a `Retry-After` header value (RFC 9110 §10.2.3).
///
/// ```swift
/// RetryAfterHeader.delay(from: "120", now: now)                             // 120
/// RetryAfterHeader.delay(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: now)   // IMF-fixdate
/// RetryAfterHeader.delay(from: "Sunday, 06-Nov-94 08:49:37 GMT", now: now)  // RFC 850
/// RetryAfterHeader.delay(from: "Sun Nov  6 08:49:37 1994", now: now)        // asctime
/// RetryAfterHeader.delay(from: "1.5", now: now)                             // nil: not delay-seconds
/// ```
///
/// Internal: ``RetryMiddleware`` honours the header, and no other public API needs it.
enum RetryAfterHeader {
    /// The seconds to wait, or `nil` when `value` is neither delay-seconds nor an HTTP-date.
    ///
    /// Delay-seconds must be ASCII digits only: `-5`, `1.5`, `" 120"` and `"120 "` are ignored.
    /// A date in the past means 0. The result is not capped: a very large value comes back very
    /// large (`.infinity` beyond `Double`'s range), and ``RetryMiddleware`` caps it.
    static func delay(from value: String, now: Date) -> TimeInterval? {
        if !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Double(value) ?? .infinity
        }
        guard let date = date(from: value, now: now) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// Parses an HTTP-date in any of the three RFC 9110 §5.6.7 formats.
    ///
    /// A two-digit RFC 850 year that would be more than 50 years after `now` is taken as the
    /// most recent past year with those digits, as RFC 9110 requires.
    static func date(from value: String, now: Date = Date()) -> Date? {
        let tokens = value.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        if tokens.count == 6, tokens[0].count == 4, tokens[0].hasSuffix(","), tokens[5] == "GMT",
            shortDays.contains(String(tokens[0].dropLast())), tokens[1].count == 2, tokens[3].count == 4
        {
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            return build(day: tokens[1], month: tokens[2], year: tokens[3], time: tokens[4])
        }
        if tokens.count == 4, tokens[0].hasSuffix(","), tokens[3] == "GMT",
            longDays.contains(String(tokens[0].dropLast()))
        {
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let parts = tokens[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0].count == 2, parts[2].count == 2, let yy = number(parts[2]) else {
                return nil
            }
            let currentYear = civil(from: now).year
            var year = currentYear - currentYear % 100 + yy
            if year > currentYear + 50 { year -= 100 }
            return build(day: parts[0], month: parts[1], year: String(year), time: tokens[2])
        }
        let words = value.split(separator: " ").map(String.init)
        if words.count == 5, shortDays.contains(words[0]),
            words[2].count <= 2, words[4].count == 4
        {
            // asctime: Sun Nov  6 08:49:37 1994 (the day is padded with a space)
            let expected =
                "\(words[0]) \(words[1]) \(words[2].count == 1 ? " " : "")\(words[2]) \(words[3]) \(words[4])"
            guard value == expected else { return nil }
            return build(day: words[2], month: words[1], year: words[4], time: words[3])
        }
        return nil
    }

    private static let shortDays: Set<String> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays: Set<String> = [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func build(day: String, month: String, year: String, time: String) -> Date? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let monthIndex = months.firstIndex(of: month), let day = number(day), let year = number(year),
            clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
            (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: monthIndex + 1, day: day)
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: seconds)
    }

    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text)
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(from date: Date) -> (year: Int, month: Int) {
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month)
    }
}
