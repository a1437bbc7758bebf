import Foundation
import Testing

@testable import Endpoints

@Suite struct MiddlewareRetryAfterTests {
    /// 2026-01-01T00:00:00Z
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    @Test(arguments: [
        "Thu, 01 Jan 2026 00:00:30 GMT",
        "Thursday, 01-Jan-26 00:00:30 GMT",
        "Thu Jan  1 00:00:30 2026",
    ])
    func httpDatesInAllThreeFormats(_ value: String) {
        #expect(RetryAfterHeader.delay(from: value, now: Self.now) == 30)
    }

    @Test func theRFCExampleDateParsesTheSameInEveryFormat() {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        let now = Date(timeIntervalSince1970: 1_000_000_000)  // 2001
        #expect(RetryAfterHeader.date(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: now) == expected)
        #expect(RetryAfterHeader.date(from: "Sunday, 06-Nov-94 08:49:37 GMT", now: now) == expected)
        #expect(RetryAfterHeader.date(from: "Sun Nov  6 08:49:37 1994", now: now) == expected)
    }

    @Test func delaySecondsAreDigitsOnly() {
        #expect(RetryAfterHeader.delay(from: "120", now: Self.now) == 120)
        #expect(RetryAfterHeader.delay(from: "0", now: Self.now) == 0)
        for ignored in ["-5", "1.5", " 120", "120 ", "+3", "", "1e3", "0x10", "١٢"] {
            #expect(RetryAfterHeader.delay(from: ignored, now: Self.now) == nil, "\(ignored)")
        }
        let huge = RetryAfterHeader.delay(from: String(repeating: "9", count: 400), now: Self.now)
        #expect(huge == .infinity)
    }

    @Test func aPastDateMeansNow() {
        #expect(RetryAfterHeader.delay(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: Self.now) == 0)
    }

    @Test func malformedDatesAreIgnored() {
        for bad in [
            "Thu, 1 Jan 2026 00:00:30 GMT", "Thu, 01 Jan 2026 00:00:30 UTC", "Thu, 01 Foo 2026 00:00:30 GMT",
            "Thu, 01 Jan 2026 24:00:00 GMT", "Thu Jan 1 00:00:30 2026", "Thursday, 01-Jan-2026 00:00:30 GMT",
            "01 Jan 2026", "tomorrow",
        ] {
            #expect(RetryAfterHeader.delay(from: bad, now: Self.now) == nil, "\(bad)")
        }
    }

    @Test func twoDigitYearsMoreThanFiftyYearsAheadArePast() throws {
        let in2026 = Self.now
        let date = try #require(RetryAfterHeader.date(from: "Monday, 01-Jan-80 00:00:00 GMT", now: in2026))
        #expect(date == Date(timeIntervalSince1970: 315_532_800))  // 1980, not 2080
        let soon = try #require(RetryAfterHeader.date(from: "Monday, 01-Jan-35 00:00:00 GMT", now: in2026))
        #expect(soon == Date(timeIntervalSince1970: 2_051_222_400))  // 2035
    }
}
