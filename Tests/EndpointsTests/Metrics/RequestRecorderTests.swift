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

    /// A head reported as it arrived times the body apart; the pipeline's report after the
    /// exchange then changes nothing. Head and body reported together leave the body untimed.
    @Test func theHeadReportedAsItArrivesTimesTheBodyApart() {
        var apart = MetricsRecording(endpointName: "E", start: 1000 * ms)
        _ = apart.attemptSent(at: 1000 * ms, authenticationAttempt: 1, bytes: 0)
        let head = apart.headReceived(status: 200, at: 1010 * ms)
        let again = apart.headReceived(status: 200, at: 1300 * ms, withBody: true)
        #expect(head.map { "\($0)" } == "headReceived(status: 200)")
        #expect(again == nil)
        _ = apart.bodyFinished(bytes: 5, at: 1300 * ms)
        #expect(apart.metrics.attempts[0].waitingForHead == 0.01)
        #expect(apart.metrics.attempts[0].receivingBody == 0.29)

        var together = MetricsRecording(endpointName: "E", start: 1000 * ms)
        _ = together.attemptSent(at: 1000 * ms, authenticationAttempt: 1, bytes: 0)
        _ = together.headReceived(status: 200, at: 1300 * ms, withBody: true)
        _ = together.bodyFinished(bytes: 5, at: 1300 * ms)
        #expect(together.metrics.attempts[0].waitingForHead == 0.3)
        #expect(together.metrics.attempts[0].receivingBody == nil)
    }

    /// Apple platforms: the system's measurement of the body splits a buffered attempt, whether it
    /// comes before the response or after.
    @Test(arguments: [true, false])
    func theSystemsBodyTimeSplitsABufferedAttempt(metricsFirst: Bool) {
        let connection = RequestMetrics.ConnectionMetrics(
            reusedConnection: true, domainLookup: nil, connect: nil, secureConnection: nil, networkProtocol: "h2",
            receivingBody: 0.25)
        var recording = MetricsRecording(endpointName: "E", start: 1000 * ms)
        _ = recording.attemptSent(at: 1000 * ms, authenticationAttempt: 1, bytes: 0)
        if metricsFirst { recording.connections([connection]) }
        _ = recording.headReceived(status: 200, at: 1300 * ms, withBody: true)
        _ = recording.bodyFinished(bytes: 5, at: 1300 * ms)
        if !metricsFirst { recording.connections([connection]) }
        let attempt = recording.metrics.attempts[0]
        #expect(abs((attempt.waitingForHead ?? 0) - 0.05) < 1e-9)
        #expect(attempt.receivingBody == 0.25)
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

/// A client's event delivery when its listener blocks: a stated bound, then drops counted and told.
@Suite struct EventDeliveryBoundTests {
    /// Blocks in its first event until released, then records every event.
    final class GatedListener: RequestEventListener {
        let blocked = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let received = Locked<[RequestEvent]>([])
        let arrived = DispatchSemaphore(value: 0)

        func receive(_ event: RequestEvent) {
            let count = received.withLock {
                $0.append(event)
                return $0.count
            }
            if count == 1 {
                blocked.signal()
                gate.wait()
            }
            arrived.signal()
        }

        /// Waits until `count` events have arrived.
        func waitFor(_ count: Int) async {
            while received.withLock({ $0.count }) < count {
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        self.arrived.wait()
                        continuation.resume()
                    }
                }
            }
        }
    }

    private func event(_ index: Int) -> EventDelivery.Pending {
        .event(RequestEvent(requestID: UInt64(index), endpointName: "E", time: 0, kind: .queued, traceID: nil))
    }

    @Test func aBlockedListenerHoldsAtMostTheCapacityAndIsToldHowManyWereDropped() async {
        // The first event is in the listener's hands; four more wait; six are dropped.
        let listener = GatedListener()
        let delivery = EventDelivery(listener: listener, capacity: 4)
        delivery.deliver(event(0))
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                listener.blocked.wait()
                continuation.resume()
            }
        }
        for index in 1...10 { delivery.deliver(event(index)) }
        listener.gate.signal()
        await listener.waitFor(6)
        // Once it caught up, events are delivered again.
        delivery.deliver(event(11))
        await listener.waitFor(7)
        let events = listener.received.withLock { $0 }
        #expect(events.count == 7)
        #expect(events.prefix(5).map(\.requestID) == [0, 1, 2, 3, 4])
        #expect(events.last?.requestID == 11)
        let dropped = events[5]
        guard case .dropped(let count) = dropped.kind else {
            Issue.record("no dropped event: \(events.map(\.kind))")
            return
        }
        #expect(count == 6)
        #expect(dropped.requestID == 0)
        #expect(dropped.description == "6 events dropped: the listener fell behind")
        #expect(EventDelivery.capacity == 10_000)
    }
}
