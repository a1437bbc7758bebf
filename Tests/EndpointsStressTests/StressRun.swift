import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one request of the mix does, and so how it must end.
enum StressKind: String, CaseIterable, Sendable {
    case get, post, stream, cancelBeforeArrival, cancelAfterArrival, timeout, dropped, busyThenOK, busyExhausted, auth

    /// How many of every 20 requests are of this kind: 20% GETs, 15% POSTs, 10% streams (JSON
    /// lines and server-sent events, read to the end), 10% cancellations, 5% timeouts, 5% dropped
    /// connections, 15% 503s with Retry-After, 20% behind expiring tokens.
    var weight: Int {
        switch self {
        case .get: 4
        case .post: 3
        case .stream: 2
        case .cancelBeforeArrival, .cancelAfterArrival, .timeout, .dropped, .busyExhausted: 1
        case .busyThenOK: 2
        case .auth: 4
        }
    }

    var expected: StressOutcome {
        switch self {
        case .get, .post, .stream, .busyThenOK, .auth: .ok
        case .cancelBeforeArrival, .cancelAfterArrival: .cancelled
        case .timeout: .timedOut
        case .dropped: .connectionLost
        case .busyExhausted: .retryExhausted
        }
    }
}

/// How a request ended, as the run classifies it.
enum StressOutcome: Hashable, Sendable, CustomStringConvertible {
    case ok, cancelled, timedOut, connectionLost, retryExhausted
    case unexpected(String)

    var description: String {
        switch self {
        case .ok: "ok"
        case .cancelled: "cancelled"
        case .timedOut: "timed out"
        case .connectionLost: "connection lost"
        case .retryExhausted: "503 until retries ran out"
        case .unexpected(let text): "unexpected: \(text)"
        }
    }

    init<E>(_ error: EndpointTaskError<E>) {
        switch error {
        case .cancelled: self = .cancelled
        case .urlLoadError(let error) where error.code == .timedOut: self = .timedOut
        // A connection closed mid-body, on both platforms (the transport maps corelibs' `.unknown`).
        case .urlLoadError(let error) where error.code == .networkConnectionLost:
            self = .connectionLost
        // RetryMiddleware gives up with the last response in its own case.
        case .errorResponse(let response, _) where response.statusCode == 503:
            self = .retryExhausted
        default: self = .unexpected(error.description)
        }
    }
}

/// The figures of one run.
struct StressReport: CustomStringConvertible {
    var requests = 0
    var outcomes: [StressOutcome: Int] = [:]
    /// Requests of each kind that ended as the kind expects.
    var expectedByKind: [StressKind: Int] = [:]
    var mismatches: [String] = []
    var waves = 0
    var refreshes = 0
    var rejectedRefreshes = 0
    var seconds = 0.0
    var hung: [String] = []

    var description: String {
        let kinds = outcomes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let byKind = StressKind.allCases.map { "\($0) \(expectedByKind[$0, default: 0])" }.joined(separator: ", ")
        return "\(requests) requests in \(String(format: "%.1f", seconds)) s: \(kinds); "
            + "as expected by kind: \(byKind); \(waves) expiry waves, \(refreshes) refreshes"
    }
}

/// An object of a run, held weakly: the run's server, session and `JWTAuth` must all be gone
/// once it ends.
struct StressSurvivor {
    let name: String
    weak var object: AnyObject?
}

/// One run of the mix: `count` requests, at most `concurrency` in flight through `session`,
/// against a fresh server and `JWTAuth` that must be gone at the end.
struct StressRun {
    let count: Int
    let concurrency: Int
    let seed: UInt64
    let session: EndpointClient

    func run() async throws -> (StressReport, [StressSurvivor]) {
        let server = try StressServer()
        var survivors = [StressSurvivor(name: "the TestServer", object: server.http)]
        let session = session
        defer { server.stop() }
        let auth = JWTAuth(
            initialTokens: JWTAuth.TokenPair(accessToken: "access-0", refreshToken: "refresh-0"),
            refreshHandler: { refreshToken in
                let tokens = try await session.response(
                    with: StressRefreshEndpoint(body: StressRefresh(refreshToken: refreshToken)))
                return JWTAuth.TokenPair(accessToken: tokens.access, refreshToken: tokens.refresh)
            }
        )
        survivors.append(StressSurvivor(name: "the JWTAuth", object: auth))
        var generator = SplitMix64(seed: seed)
        let kinds = (0..<count).map { _ in Self.kind(Int(generator.next() % 20)) }
        // Waves far enough apart that each one's refresh ends before the next, and none so late
        // that no authenticated request would see it.
        let waveSpacing = max(250, count / 8)

        let outstanding = Locked([Int: StressKind]())
        let started = Date()
        let traffic = Task {
            await StressLoopback.$baseURL.withValue(server.http.baseURL) {
                await withTaskGroup(of: (Int, StressOutcome).self) { group in
                    var report = StressReport()
                    var next = 0
                    func record(_ id: Int, _ outcome: StressOutcome) {
                        report.outcomes[outcome, default: 0] += 1
                        if outcome == kinds[id].expected { report.expectedByKind[kinds[id], default: 0] += 1 }
                        if outcome != kinds[id].expected, report.mismatches.count < 20 {
                            report.mismatches.append("request \(id) (\(kinds[id])): \(outcome)")
                        }
                        outstanding.withLock { $0[id] = nil }
                    }
                    while next < count || !group.isEmpty {
                        while next < count, next - report.outcomes.values.reduce(0, +) < concurrency {
                            let id = next
                            next += 1
                            if id > 0, id % waveSpacing == 0, id + waveSpacing / 2 <= count { server.expireTokens() }
                            outstanding.withLock { $0[id] = kinds[id] }
                            group.addTask {
                                (id, await send(id, kinds[id], session: session, server: server, auth: auth))
                            }
                        }
                        if let (id, outcome) = await group.next() { record(id, outcome) }
                    }
                    report.requests = count
                    return report
                }
            }
        }

        // The watchdog: a request that never ends fails the run instead of hanging the suite.
        let limit = (60 + Double(count) / 20) * StressTiming.scale
        let finished = await withTaskGroup(of: StressReport?.self) { group in
            group.addTask { await traffic.value }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(limit * 1e9))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard var report = finished else {
            let stuck = outstanding.withLock { $0 }
            var report = StressReport()
            report.hung = stuck.sorted { $0.key < $1.key }.prefix(20).map { "request \($0.key) (\($0.value))" }
            report.hung.insert("\(stuck.count) requests still running after \(Int(limit)) s", at: 0)
            traffic.cancel()
            return (report, [])
        }
        report.seconds = Date().timeIntervalSince(started)
        server.auth.withLock { state in
            report.waves = state.waves
            report.refreshes = state.refreshes
            report.rejectedRefreshes = state.rejectedRefreshes
        }
        return (report, survivors)
    }

    private static func kind(_ slot: Int) -> StressKind {
        var slot = slot
        for kind in StressKind.allCases {
            if slot < kind.weight { return kind }
            slot -= kind.weight
        }
        return .get
    }
}

/// Sends request `id` of `kind` and classifies how it ended.
private func send(
    _ id: Int,
    _ kind: StressKind,
    session: EndpointClient,
    server: StressServer,
    auth: JWTAuth
) async -> StressOutcome {
    func outcome<E: Endpoint>(
        _ endpoint: E,
        auth: E.Auth = E.auth,
        check: (E.Response) -> String? = { _ in nil }
    ) async -> StressOutcome {
        do throws(E.TaskError) {
            let response = try await session.response(with: endpoint, auth: auth)
            return check(response).map { .unexpected($0) } ?? .ok
        } catch {
            return StressOutcome(error)
        }
    }
    switch kind {
    case .get:
        return await outcome(StressGet(parameterComponents: StressID(id: id))) { echo in
            echo.method == "GET" && echo.query == "i=\(id)" ? nil : "echo \(echo)"
        }
    case .post:
        let body = StressPost.Body(id: id, payload: String(repeating: "é0", count: id % 2048))
        return await outcome(StressPost(body: body)) { echo in
            let echoed = echo.body.flatMap { try? JSONDecoder().decode(StressPost.Body.self, from: Data($0.utf8)) }
            return echoed == body ? nil : "echoed body differs"
        }
    case .stream:
        // Even requests read JSON lines, odd ones server-sent events; each stream must deliver
        // every item, in order, whatever chunks the server cut it into.
        let endpoint = StressStreamed(pathComponents: StressID(id: id))
        do throws(StressStreamed.TaskError) {
            let stream =
                id.isMultiple(of: 2)
                ? try await session.bytes(for: endpoint).lines : try await session.bytes(for: endpoint).events.values
            var items: [StressItem] = []
            for try await item in stream { items.append(item) }
            let expected = StressServer.streamItems(id)
            return items == expected
                ? .ok : .unexpected("\(items.count) of \(expected.count) items, \(items.prefix(3))")
        } catch {
            return StressOutcome(error)
        }
    case .cancelBeforeArrival, .cancelAfterArrival:
        let request = Task { await outcome(StressParked(pathComponents: StressID(id: id))) }
        if kind == .cancelAfterArrival { await server.parking.waitForArrival(id) }
        request.cancel()
        let result = await request.value
        server.parking.release(id)
        return result
    case .timeout:
        let result = await outcome(StressTimedOut(pathComponents: StressID(id: id)))
        server.parking.release(id)
        return result
    case .dropped:
        return await outcome(StressDropped())
    case .busyThenOK:
        let endpoint = StressBusy(pathComponents: .init(id: id), parameterComponents: .init(fail: 1))
        return await outcome(endpoint) { $0.attempt == 2 ? nil : "answered at attempt \($0.attempt)" }
    case .busyExhausted:
        return await outcome(StressBusy(pathComponents: .init(id: id), parameterComponents: .init(fail: 99)))
    case .auth:
        return await outcome(StressAuthenticated(pathComponents: StressID(id: id)), auth: auth) { response in
            response.token.hasPrefix("access-") ? nil : "token \(response.token)"
        }
    }
}

enum StressTiming {
    /// `ENDPOINTS_TEST_TIME_SCALE`, as in the main suite: sanitizer passes run several times slower.
    static let scale: Double =
        ProcessInfo.processInfo.environment["ENDPOINTS_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1
}
