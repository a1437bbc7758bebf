// The Retry-After parser: any text gives nil or a delay that is not negative and not NaN;
// delay-seconds read as their number; a parsed date gives exactly `date - now`; and a date
// written by Foundation's formatter in each of the three HTTP-date formats parses back to itself.
@testable import Endpoints
import Foundation
import FuzzDriver
import FuzzSupport

func formatter(_ format: String) -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.calendar = Calendar(identifier: .gregorian)
    formatter.dateFormat = format
    return formatter
}

// Formatters, made once (DateFormatter is Sendable here).
let imfFixdate = formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'")
let rfc850 = formatter("EEEE, dd-MMM-yy HH:mm:ss 'GMT'")
let asctimeDay = formatter("d")
let asctimeRest = formatter("HH:mm:ss yyyy")
let asctimeHead = formatter("EEE MMM")
let yearOnly = formatter("yyyy")

/// `Sun Nov  6 08:49:37 1994`: the day of the month padded with a space to two characters.
func asctime(_ date: Date) -> String {
    let day = asctimeDay.string(from: date)
    return "\(asctimeHead.string(from: date)) \(day.count == 1 ? " " : "")\(day) \(asctimeRest.string(from: date))"
}

func check(_ value: String, now: Date) {
    let delay = RetryAfterHeader.delay(from: value, now: now)
    if let delay { require(delay >= 0 && !delay.isNaN, "\(value.debugDescription) gave \(delay)") }
    if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
        require(delay == (Double(value) ?? .infinity), "\(value) read as \(String(describing: delay))")
    } else if let date = RetryAfterHeader.date(from: value, now: now) {
        require(delay == max(0, date.timeIntervalSince(now)), "\(value.debugDescription): delay and date disagree")
    } else {
        require(delay == nil, "\(value.debugDescription) has a delay but no date")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let flags = input.byte()
    // Now: any instant from 1700 to 9998 (where Foundation's calendar is proleptic Gregorian), or
    // any finite Double at all.
    let raw = input.uint64()
    let low = -8_520_336_000.0  // 1700-01-01
    let high = 253_339_000_000.0  // 9998
    let now: Date
    if flags & 1 == 0 {
        now = Date(timeIntervalSince1970: (low + Double(raw % UInt64(high - low))).rounded(.down))
    } else {
        let any = Double(bitPattern: raw)
        now = Date(timeIntervalSince1970: any.isFinite ? any : 0)
    }

    // Arbitrary text.
    check(String(decoding: input.rest(), as: UTF8.self), now: now)

    // Dates written by Foundation parse back to themselves.
    guard flags & 1 == 0 else { return 0 }
    let offset = Double(Int64(bitPattern: raw >> 1 | raw << 63) % 3_000_000_000)
    let date = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + offset).rounded(.down))
    guard (low...high).contains(date.timeIntervalSince1970) else { return 0 }
    let imf = imfFixdate.string(from: date)
    require(RetryAfterHeader.date(from: imf, now: now) == date, "\(imf) read as \(String(describing: RetryAfterHeader.date(from: imf, now: now)))")
    let asc = asctime(date)
    require(RetryAfterHeader.date(from: asc, now: now) == date, "\(asc) read as \(String(describing: RetryAfterHeader.date(from: asc, now: now)))")
    check(imf, now: now)
    check(asc, now: now)

    // RFC 850 has two-digit years, read in now's century unless that is more than 50 years in the
    // future, and then in the century before (RFC 9110 §5.6.7): never more than 50 years ahead,
    // never more than a century back.
    let text850 = rfc850.string(from: date)
    guard let parsed = RetryAfterHeader.date(from: text850, now: now) else {
        require(false, "\(text850) not read")
        return 0
    }
    let currentYear = Int(yearOnly.string(from: now))!
    let year = Int(yearOnly.string(from: date))!
    let parsedYear = Int(yearOnly.string(from: parsed)) ?? -1
    require(parsedYear % 100 == year % 100, "\(text850) read in \(parsedYear)")
    require(parsedYear <= currentYear + 50 && parsedYear > currentYear - 100, "\(text850) read in \(parsedYear) (now \(currentYear))")
    if parsedYear == year { require(parsed == date, "\(text850) read as \(parsed)") }
    return 0
}

/// The executable's entry point (see FuzzDriver.h).
@_cdecl("FuzzRetryAfter_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    endpoints_fuzz_main(argc, argv)
}
