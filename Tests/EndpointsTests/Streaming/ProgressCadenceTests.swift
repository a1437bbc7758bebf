import Foundation
import Testing

@testable import Endpoints

/// The pace of a download's progress reports, driven with a clock of its own.
@Suite struct ProgressCadenceTests {
    private static let ms: UInt64 = 1_000_000

    private func progress(_ bytes: Int64, of total: Int64? = 1000) -> TransferProgress {
        TransferProgress(completedBytes: bytes, totalBytes: total)
    }

    @Test func aReportComesOncePastOnePercentAndAHundredMilliseconds() {
        var cadence = ProgressCadence(now: 0)
        // 1 % is 10 of 1000 bytes, here 500 ms after the start.
        #expect(cadence.advance(to: progress(10), now: 500 * Self.ms) == .report(progress(10)))
        // 1 % more, 40 ms later: due at 100 ms, once asked.
        #expect(cadence.advance(to: progress(20), now: 540 * Self.ms) == .wake(after: 60 * Self.ms))
        #expect(cadence.advance(to: progress(30), now: 560 * Self.ms) == .none)
        // The latest is reported then, though no byte came since.
        #expect(cadence.wake(now: 600 * Self.ms) == .report(progress(30)))
        #expect(cadence.wake(now: 700 * Self.ms) == .none)
    }

    @Test func lessThanOnePercentIsReportedWhenTheBodyPausesForAHundredMilliseconds() {
        var cadence = ProgressCadence(now: 0)
        #expect(cadence.advance(to: progress(5), now: 200 * Self.ms) == .wake(after: 100 * Self.ms))
        #expect(cadence.advance(to: progress(8), now: 250 * Self.ms) == .none)
        // Bytes came at 250 ms: the pause is over at 350 ms.
        #expect(cadence.wake(now: 300 * Self.ms) == .wake(after: 50 * Self.ms))
        #expect(cadence.wake(now: 350 * Self.ms) == .report(progress(8)))
        // Nothing new since: nothing to report.
        #expect(cadence.advance(to: progress(8), now: 500 * Self.ms) == .none)
    }

    @Test func anUnknownLengthIsReportedEveryHundredMilliseconds() {
        var cadence = ProgressCadence(now: 0)
        #expect(cadence.advance(to: progress(1, of: nil), now: 10 * Self.ms) == .wake(after: 90 * Self.ms))
        #expect(cadence.wake(now: 100 * Self.ms) == .report(progress(1, of: nil)))
        #expect(cadence.advance(to: progress(2, of: nil), now: 200 * Self.ms) == .report(progress(2, of: nil)))
    }

    @Test func aFastBodyGetsAtMostTenReportsASecondAndAboutAHundredInAll() {
        // 300 MB at 1 GB/s in 16 KiB writes.
        let total: Int64 = 300 << 20
        var cadence = ProgressCadence(now: 0)
        var reports = 0
        var written: Int64 = 0
        while written < total {
            written = min(total, written + (16 << 10))
            let now = UInt64(written)  // one byte a nanosecond
            if case .report = cadence.advance(to: progress(written, of: total), now: now) { reports += 1 }
        }
        if cadence.finish(complete: true) != nil { reports += 1 }
        // 0.3 s: three reports by the clock, and the complete body's.
        #expect(reports == 4)

        // The same body over 100 s: one report per 1 %.
        var slow = ProgressCadence(now: 0)
        reports = 0
        written = 0
        while written < total {
            written = min(total, written + (16 << 10))
            let now = UInt64(Double(written) / Double(total) * 100_000_000_000)
            if case .report = slow.advance(to: progress(written, of: total), now: now) { reports += 1 }
        }
        if slow.finish(complete: true) != nil { reports += 1 }
        #expect((99...101).contains(reports), "\(reports) reports")
    }

    @Test func theCompleteBodyIsReportedAtTheEndOnlyOnSuccess() {
        var done = ProgressCadence(now: 0)
        #expect(done.advance(to: progress(1000), now: 5 * Self.ms) == .wake(after: 95 * Self.ms))
        #expect(done.finish(complete: true) == progress(1000))
        #expect(done.wake(now: 100 * Self.ms) == .none)

        var failed = ProgressCadence(now: 0)
        _ = failed.advance(to: progress(500), now: 5 * Self.ms)
        #expect(failed.finish(complete: false) == nil)

        // Already reported: nothing more at the end.
        var reported = ProgressCadence(now: 0)
        #expect(reported.advance(to: progress(1000), now: 200 * Self.ms) == .report(progress(1000)))
        #expect(reported.finish(complete: true) == nil)
    }
}
