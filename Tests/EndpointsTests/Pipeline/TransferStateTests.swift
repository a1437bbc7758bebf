import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `TransferState`, the transport call's state machine, driven event by event without a network.
@Suite struct TransferStateTests {
    /// Stands for a `URLSessionTask`.
    private final class Task: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }

    private typealias State = TransferState<Task, String>

    private let url = URL(string: "https://api.example.com/a")!

    private func response(_ status: Int) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
    }

    /// A state whose caller waits on "caller" with `task` sent.
    private func sending(_ task: Task) -> State {
        var state = State(now: 0)
        guard case .send = state.start("caller") else {
            Issue.record("a new call should send")
            return state
        }
        guard case .resume(let resumed) = state.sent(task, now: 1), resumed === task else {
            Issue.record("the task should be resumed")
            return state
        }
        return state
    }

    private func complete(
        _ state: inout State,
        error: (any Error)? = nil,
        response: URLResponse? = nil,
        resend: Bool = false,
        exceededHops: Bool = false,
        refusedChallenge: HTTPURLResponse? = nil
    ) -> State.CompletionAction {
        state.completed(
            error: error, response: response, resend: resend, exceededHops: exceededHops,
            refusedChallenge: refusedChallenge, failingURL: url)
    }

    @Test func startSendsAndASentTaskIsResumed() {
        let task = Task("t")
        let state = sending(task)
        #expect(state.task === task)
        #expect(state.shouldSend)
        #expect(!state.isStreaming)
    }

    @Test func aCallStoppedBeforeItStartsFailsAtStartAndSendsNothing() {
        var state = State(now: 0)
        guard case .none = state.stop(with: CancellationError()) else {
            Issue.record("nothing to cancel before the start")
            return
        }
        guard case .fail("caller", let error) = state.start("caller") else {
            Issue.record("the caller should get the failure at once")
            return
        }
        #expect(error is CancellationError)
        #expect(!state.shouldSend)
    }

    @Test func stoppingCancelsTheTaskAndFailsTheWaitingCallerOnce() {
        let task = Task("t")
        var state = sending(task)
        guard case .stop(let cancelled, "caller", let error) = state.stop(with: CancellationError()) else {
            Issue.record("expected a stop")
            return
        }
        #expect(cancelled === task)
        #expect(error is CancellationError)
        guard case .none = state.stop(with: URLError(.timedOut)) else {
            Issue.record("a second stop does nothing")
            return
        }
        // The task that ends afterwards is only cleaned up after.
        guard case .discard = complete(&state, error: URLError(.cancelled)) else {
            Issue.record("expected the end to be discarded")
            return
        }
    }

    @Test func aTaskMadeAfterAStopIsCancelled() {
        var state = State(now: 0)
        _ = state.start("caller")
        _ = state.stop(with: CancellationError())
        #expect(!state.shouldSend)
        guard case .cancel = state.sent(Task("late"), now: 1) else {
            Issue.record("a task made as the call stopped is cancelled")
            return
        }
    }

    @Test func theHeadGoesToTheCallerOnceThenTheBodyStreams() {
        var state = sending(Task("t"))
        #expect(state.headArrived(now: 2) == "caller")
        #expect(state.isStreaming)
        #expect(state.headArrived(now: 3) == nil)
        guard case .stop(_, nil, _) = state.stop(with: CancellationError()) else {
            Issue.record("a streaming call stops without a caller waiting")
            return
        }
        #expect(!state.isStreaming)
    }

    @Test func aRedirectResentByTheCallIsNotTheAnswer() {
        var state = sending(Task("first"))
        state.resendAhead()
        #expect(state.headArrived(now: 2) == nil, "the 307's head is not the answer")
        guard case .resend = complete(&state, response: response(307), resend: true) else {
            Issue.record("expected a resend")
            return
        }
        #expect(state.task == nil)
        guard case .resume = state.sent(Task("second"), now: 3) else {
            Issue.record("the resend is sent")
            return
        }
        #expect(state.headArrived(now: 4) == "caller")
    }

    @Test func theEndOfATaskMapsToItsOutcome() {
        var answered = sending(Task("t"))
        guard case .answer("caller", let ok) = complete(&answered, response: response(200)), ok.statusCode == 200 else {
            Issue.record("a response is the answer")
            return
        }
        #expect(!answered.shouldSend)

        var tooMany = sending(Task("t"))
        guard case .fail("caller", let error) = complete(&tooMany, response: response(302), exceededHops: true) else {
            Issue.record("too many redirects fail")
            return
        }
        #expect((error as? URLError)?.code == .httpTooManyRedirects)

        var refused = sending(Task("t"))
        guard
            case .answer("caller", let challenge) = complete(
                &refused, error: URLError(.userCancelledAuthentication), refusedChallenge: response(401)),
            challenge.statusCode == 401
        else {
            Issue.record("a refused challenge's 401 is the answer")
            return
        }

        var failed = sending(Task("t"))
        guard case .fail("caller", let lost) = complete(&failed, error: URLError(.networkConnectionLost)) else {
            Issue.record("an error fails")
            return
        }
        #expect((lost as? URLError)?.code == .networkConnectionLost)

        var noResponse = sending(Task("t"))
        guard case .fail("caller", let bad) = complete(&noResponse) else {
            Issue.record("no HTTP response fails")
            return
        }
        #expect((bad as? URLError)?.code == .badServerResponse)

        var streamed = sending(Task("t"))
        _ = streamed.headArrived(now: 2)
        guard case .answer(nil, _) = complete(&streamed, response: response(200)) else {
            Issue.record("a streamed body ends with no caller waiting")
            return
        }
    }

    @Test func theWatchdogExpiresAnIdleCallAndWaitsForAPausedOne() {
        var state = sending(Task("t"))  // last activity at 1 ns
        guard case .check(let after) = state.watchdog(now: 500_000_001, timeout: 2) else {
            Issue.record("not idle yet")
            return
        }
        #expect(abs(after - 1.5) < 0.001)
        guard case .expire = state.watchdog(now: 2_000_000_001, timeout: 2) else {
            Issue.record("idle for the whole timeout")
            return
        }
        guard case .suspend = state.setPaused(true, now: 2_000_000_001) else {
            Issue.record("a reader behind suspends the task")
            return
        }
        guard case .check(after: 2) = state.watchdog(now: 9_000_000_000, timeout: 2) else {
            Issue.record("a paused call waits for its reader, not for the network")
            return
        }
        guard case .none = state.setPaused(true, now: 9_000_000_000) else {
            Issue.record("pausing twice does nothing")
            return
        }
        guard case .resume = state.setPaused(false, now: 9_000_000_000) else {
            Issue.record("a reader caught up resumes the task")
            return
        }
        _ = state.stop(with: CancellationError())
        guard case .none = state.watchdog(now: 20_000_000_000, timeout: 2) else {
            Issue.record("the watchdog stops with the call")
            return
        }
    }
}
