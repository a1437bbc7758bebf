import Foundation
import Testing

@testable import Endpoints

/// The measurements' state alone, driven with made-up times (nanoseconds).
@Suite struct RequestRecorderTests {
    private let ms: UInt64 = 1_000_000

    @Test func attemptsTakeTheirReasonsAndTimes() {
        var recording = MetricsRecording(endpointName: "E", start: 1000 * ms)
        _ = recording.attemptSent(at: 1001 * ms, authenticationAttempt: 1, bytes: 5)
        _ = recording.queued(at: 1001 * ms)
        _ = recording.admitted(at: 1004 * ms)
        _ = recording.headReceived(status: 503, at: 1010 * ms)
        _ = recording.bodyFinished(bytes: 20, at: 1010 * ms)
        #expect(recording.retryScheduled(reason: "status 503", delay: 0.2) != nil)
        _ = recording.attemptSent(at: 1211 * ms, authenticationAttempt: 1, bytes: 5)
        _ = recording.headReceived(status: 401, at: 1215 * ms)
        _ = recording.refreshStarted(at: 1215 * ms)
        _ = recording.refreshEnded(at: 1225 * ms)
        _ = recording.attemptSent(at: 1226 * ms, authenticationAttempt: 2, bytes: 5)
        _ = recording.redirected(status: 307, droppedCredentials: false, at: 1230 * ms)
        _ = recording.headReceived(status: 200, at: 1240 * ms)
        _ = recording.bodyFinished(bytes: 7, at: 1241 * ms)
        let ended = recording.finish(.decoded, at: 1243 * ms)
        #expect(ended)
        let metrics = recording.metrics
        #expect(metrics.attempts.map(\.reason) == [.initial, .retry, .reauthenticated, .redirect])
        #expect(metrics.attempts.map(\.statusCode) == [503, 401, 307, 200])
        #expect(metrics.attempts.map(\.retryDelay) == [nil, 0.2, nil, nil])
        #expect(abs(metrics.attempts[0].queued - 0.003) < 1e-9)
        #expect(abs((metrics.attempts[0].waitingForHead ?? 0) - 0.006) < 1e-9, "the queue's wait is not the server's")
        #expect(metrics.refreshes == 1)
        #expect(abs(metrics.refreshing - 0.01) < 1e-9)
        #expect(abs(metrics.duration - 0.243) < 1e-9)
        #expect(metrics.decoding == 0.002)
    }

    @Test func aDownloadsSpooledBytesCountWhenItsBodyEnds() {
        var recording = MetricsRecording(endpointName: "E", start: 1000 * ms)
        _ = recording.attemptSent(at: 1001 * ms, authenticationAttempt: 1, bytes: 0)
        _ = recording.headReceived(status: 200, at: 1002 * ms)
        recording.bodySpooled(bytes: 4_096)
        _ = recording.bodyFinished(bytes: 10, at: 1003 * ms)
        _ = recording.finish(.decoded, at: 1003 * ms)
        #expect(recording.metrics.attempts.map(\.bytesReceived) == [4_106])
    }

    @Test func nothingIsRecordedAfterTheEnd() {
        var recording = MetricsRecording(endpointName: "E", start: 0)
        _ = recording.attemptSent(at: 1, authenticationAttempt: 1, bytes: 0)
        let ended = recording.finish(.cancelled, at: 2)
        #expect(ended)
        #expect(recording.headReceived(status: 200, at: 3) == nil)
        #expect(recording.attemptSent(at: 4, authenticationAttempt: 1, bytes: 0) == nil)
        let again = recording.finish(.decoded, at: 5)
        #expect(!again)
        #expect(recording.metrics.attempts.count == 1)
        #expect(recording.metrics.attempts[0].statusCode == nil)
    }

    @Test func theTimelineNamesNoURL() {
        var recording = MetricsRecording(endpointName: "ProfileEndpoint", start: 0)
        _ = recording.attemptSent(at: 0, authenticationAttempt: 1, bytes: 3)
        _ = recording.headReceived(status: 200, at: 2 * ms)
        _ = recording.bodyFinished(bytes: 42, at: 3 * ms)
        _ = recording.finish(.decoded, at: 4 * ms)
        let text = recording.metrics.description
        #expect(text.hasPrefix("ProfileEndpoint 4.0 ms, 1 attempt"))
        #expect(text.contains("#1 initial"))
        #expect(text.contains("status 200"))
        #expect(text.contains("42 B received"))
    }

    /// A fresh hit makes no attempt: the cache's answer is where decoding is timed from.
    @Test func aCacheHitHasNoAttemptAndTimesDecodingFromTheAnswer() {
        var recording = MetricsRecording(endpointName: "E", start: 1000 * ms)
        recording.cacheAnswered(.hit, at: 1001 * ms)
        _ = recording.finish(.decoded, at: 1003 * ms)
        #expect(recording.metrics.attempts.isEmpty)
        #expect(recording.metrics.cache == .hit)
        #expect(recording.metrics.decoding == 0.002)
        #expect(recording.metrics.description.contains("cache: hit"))
    }

    /// A revalidation keeps the attempt's own times; a middleware's answer without any send has
    /// no body to time decoding from.
    @Test func aRevalidationKeepsItsAttemptAndAnAnswerWithoutASendHasNoDecodingTime() {
        var revalidated = MetricsRecording(endpointName: "E", start: 1000 * ms)
        _ = revalidated.attemptSent(at: 1001 * ms, authenticationAttempt: 1, bytes: 0)
        _ = revalidated.headReceived(status: 304, at: 1005 * ms)
        revalidated.cacheAnswered(.revalidated, at: 1006 * ms)
        _ = revalidated.finish(.decoded, at: 1007 * ms)
        #expect(revalidated.metrics.attempts.map(\.statusCode) == [304])
        #expect(revalidated.metrics.cache == .revalidated)
        #expect(revalidated.metrics.decoding == 0.002)

        var answered = MetricsRecording(endpointName: "E", start: 1000 * ms)
        _ = answered.finish(.decoded, at: 1003 * ms)
        #expect(answered.metrics.decoding == nil)
        #expect(answered.metrics.cache == nil)
    }

    @Test func theRecorderMeasuresWithoutAListener() {
        let recorder = RequestRecorder(endpointName: "E", delivery: nil)
        #expect(recorder.id == 0)
        recorder.started(URLRequest(url: URL(string: "http://h/?token=x")!))
        let metrics = recorder.finish(.failed(.transport, decoding: false))
        #expect(metrics.attempts.isEmpty)
        #expect(metrics.duration >= 0)
    }
}
