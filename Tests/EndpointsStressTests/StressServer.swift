import EndpointsTestServer
import Foundation

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests parked on the server until the test lets them go: the server side of cancellations
/// and timeouts. The test waits for a request's arrival (an event, not a sleep) before cancelling
/// it, and releases the server's handler once the client has given up, so no handler outlives the run.
final class Parking: Sendable {
    private struct State {
        var parked: [Int: CheckedContinuation<Void, Never>] = [:]
        var arrivalWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var arrived: Set<Int> = []
        var released: Set<Int> = []
    }

    private let state = Locked(State())

    /// Called by the server's handler: records the arrival and waits for ``release(_:)``.
    func park(_ id: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (waiter, resumeNow) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Bool) in
                state.arrived.insert(id)
                if state.released.contains(id) { return (state.arrivalWaiters.removeValue(forKey: id), true) }
                state.parked[id] = continuation
                return (state.arrivalWaiters.removeValue(forKey: id), false)
            }
            waiter?.resume()
            if resumeNow { continuation.resume() }
        }
    }

    /// Returns once request `id` reached the server.
    func waitForArrival(_ id: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.arrived.contains(id) { return true }
                state.arrivalWaiters[id] = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets the handler of request `id` answer (now, or as soon as it arrives, if ever).
    func release(_ id: Int) {
        state.withLock { state in
            state.released.insert(id)
            return state.parked.removeValue(forKey: id)
        }?.resume()
    }

    /// Lets every handler still parked answer, and every waiter go: the end of a run.
    func releaseAll() {
        let (parked, waiters) = state.withLock { state in
            defer {
                state.parked = [:]
                state.arrivalWaiters = [:]
            }
            return (Array(state.parked.values), Array(state.arrivalWaiters.values))
        }
        parked.forEach { $0.resume() }
        waiters.forEach { $0.resume() }
    }

    var parkedCount: Int { state.withLock { $0.parked.count } }
}

/// The loopback server of one stress run, with its routes:
///
/// - `/stress/park/{id}`: parks the request (see ``Parking``), then answers 200.
/// - `/stress/busy/{id}?fail=K`: 503 with `Retry-After: 0` for the first K attempts of `id`, then 200.
/// - `/stress/auth/{id}`: 200 when the bearer token is the current access token, 401 otherwise.
/// - `/stress/refresh`: exchanges the current refresh token for a new pair, counting refreshes.
///
/// Built-in routes serve the rest: `/echo` (GET and POST) and `/close-mid-body`.
final class StressServer: Sendable {
    struct AuthState {
        var generation = 0
        /// `nil` while the tokens are expired (between an expiry and the refresh it causes).
        var validAccess: String? = "access-0"
        var validRefresh = "refresh-0"
        var refreshes = 0
        var rejectedRefreshes = 0
        var waves = 0
    }

    let http: TestServer
    let parking = Parking()
    let auth = Locked(AuthState())
    private let busyAttempts = Locked([Int: Int]())

    init() throws {
        http = try TestServer()
        http.route("/stress/park/*") { [parking] request in
            await parking.park(Self.id(of: request))
            return .json(["parked": "released"])
        }
        http.route("/stress/busy/*") { [busyAttempts] request in
            let id = Self.id(of: request)
            let attempt = busyAttempts.withLock { attempts -> Int in
                attempts[id, default: 0] += 1
                return attempts[id]!
            }
            let failures = Int(request.queryValue("fail") ?? "0") ?? 0
            if attempt <= failures {
                return TestServer.Response(
                    status: 503, headers: [(name: "Retry-After", value: "0")], body: Data(#"{"busy":true}"#.utf8))
            }
            return .json(["attempt": attempt])
        }
        http.route("/stress/auth/*") { [auth] request in
            let header = request.header("Authorization") ?? ""
            let valid = auth.withLock { $0.validAccess }
            guard let valid, header == "Bearer \(valid)" else { return .json(["message": "expired"], status: 401) }
            return .json(["token": valid])
        }
        http.route("/stress/refresh") { [auth] request in
            let presented = (try? JSONDecoder().decode(StressRefresh.self, from: request.body))?.refreshToken
            let pair = auth.withLock { state -> StressTokens? in
                guard presented == state.validRefresh else {
                    state.rejectedRefreshes += 1
                    return nil
                }
                state.generation += 1
                state.refreshes += 1
                state.validAccess = "access-\(state.generation)"
                state.validRefresh = "refresh-\(state.generation)"
                return StressTokens(access: state.validAccess!, refresh: state.validRefresh)
            }
            guard let pair else { return .json(["message": "stale refresh token"], status: 401) }
            return .json(pair)
        }
    }

    /// Makes the server reject the current access token: the start of an expiry wave.
    func expireTokens() {
        auth.withLock { state in
            state.validAccess = nil
            state.waves += 1
        }
    }

    func stop() {
        parking.releaseAll()
        http.stop()
    }

    private static func id(of request: TestServer.Request) -> Int {
        Int(request.rawPath.split(separator: "/").last ?? "") ?? -1
    }
}

struct StressRefresh: Codable, Sendable { let refreshToken: String }
struct StressTokens: Codable, Sendable {
    let access: String
    let refresh: String
}
