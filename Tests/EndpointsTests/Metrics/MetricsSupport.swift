import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Collects a client's events and lets a test wait for them (on events, not sleeps).
final class EventLog: RequestEventListener {
    private typealias Condition = @Sendable ([RequestEvent]) -> Bool
    private let state = TestLocked<(events: [RequestEvent], waiters: [(Condition, @Sendable () -> Void)])>(
        (events: [], waiters: []))

    var events: [RequestEvent] { state.withLock { $0.events } }

    func receive(_ event: RequestEvent) {
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            state.events.append(event)
            let events = state.events
            let ready = state.waiters.filter { $0.0(events) }.map(\.1)
            state.waiters.removeAll { $0.0(events) }
            return ready
        }
        for resume in ready { resume() }
    }

    /// Returns once `count` requests have sent their last event.
    func waitForEnds(_ count: Int) async {
        await wait(until: { events in events.filter(\.isLast).count >= count })
    }

    /// Returns once an event matching `condition` arrived.
    func waitFor(_ condition: @escaping @Sendable (RequestEvent) -> Bool) async {
        await wait(until: { events in events.contains(where: condition) })
    }

    /// Returns once `condition` holds, or after 60 s with an issue recorded: a test whose events
    /// never come fails instead of hanging the run.
    private func wait(until condition: @escaping Condition) async {
        let waiter = TestLocked<CheckedContinuation<Void, Never>?>(nil)
        let watchdog = Task {
            try await Task.sleep(nanoseconds: 60_000_000_000)
            guard let continuation = waiter.withLock({ $0.take() }) else { return }
            Issue.record("the events waited for never came; received: \(events.map(\.name))")
            continuation.resume()
        }
        defer { watchdog.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiter.withLock { $0 = continuation }
            let now = state.withLock { state -> Bool in
                if condition(state.events) { return true }
                state.waiters.append((condition, { waiter.withLock { $0.take() }?.resume() }))
                return false
            }
            if now { waiter.withLock { $0.take() }?.resume() }
        }
    }
}

extension RequestEvent {
    /// Whether this is a request's last event.
    var isLast: Bool {
        switch kind {
        case .finished, .cancelled: true
        default: false
        }
    }

    /// The event's kind without its values, for comparing sequences.
    var name: String {
        switch kind {
        case .started: "started"
        case .authenticated: "authenticated"
        case .queued: "queued"
        case .admitted: "admitted"
        case .attemptSent: "attemptSent"
        case .redirectFollowed: "redirectFollowed"
        case .headReceived: "headReceived"
        case .bodyFinished: "bodyFinished"
        case .retryScheduled: "retryScheduled"
        case .refreshStarted: "refreshStarted"
        case .refreshEnded: "refreshEnded"
        case .decoded: "decoded"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .finished: "finished"
        case .dropped: "dropped"
        }
    }
}

/// A bearer token renewed when the server answers 401: the first is refused, the renewed one accepted.
struct RenewingBearer: AuthenticationMethod {
    let token: TestLocked<String>

    init(_ token: String) { self.token = TestLocked(token) }

    func authenticate(request: URLRequest) async throws(AuthenticationError) -> URLRequest {
        var request = request
        request.setValue("Bearer \(token.withLock { $0 })", forHTTPHeaderField: "Authorization")
        return request
    }

    func shouldReauthenticate(for request: URLRequest, response: HTTPURLResponse) -> Bool {
        response.statusCode == 401
    }

    func reauthenticate(after request: URLRequest) async throws(AuthenticationError) {
        token.withLock { $0 = "renewed-secret-token" }
    }
}

/// `GET /{route}` with a ``RenewingBearer``.
struct BearerEchoEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError

    static let auth = RenewingBearer("stale-secret-token")
    static let definition: Definition<BearerEchoEndpoint> = Definition(path: "\(path: \.route)")

    let pathComponents: Route

    init(_ route: String) { pathComponents = Route(route: route) }
}

/// The JSON of an ``Echo`` for `path`.
func echoJSON(_ path: String) -> TestServer.Response {
    .json(raw: #"{"method":"GET","path":"\#(path)","headers":{}}"#)
}
