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
/// - `/stress/stream/{id}`: ``streamItems(_:)`` as JSON lines (even `id`) or server-sent events
///   (odd `id`, with IDs and comments), streamed in chunks of 3 to 13 bytes, so that lines, UTF-8
///   sequences and CRLFs are cut across chunks.
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
        http.route("/stress/stream/*") { request in
            let id = Self.id(of: request)
            let body = Self.streamBody(id)
            let size = id % 11 + 3
            let chunks = stride(from: 0, to: body.count, by: size).map { body[$0..<min(body.count, $0 + size)] }
            return .streamed(
                chunks.map { Data($0) },
                contentType: id.isMultiple(of: 2) ? "application/x-ndjson" : "text/event-stream")
        }
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

    /// The items `/stress/stream/{id}` sends: 3 to 9 of them.
    static func streamItems(_ id: Int) -> [StressItem] {
        (0..<(id % 7 + 3)).map { StressItem(id: id, index: $0) }
    }

    /// The body of `/stress/stream/{id}`: one JSON line per item (CRLF after every third, a blank
    /// line after the first), or one event per item with a comment and an ID, the data split over
    /// two `data:` lines for every other item. Non-ASCII padding puts multi-byte characters in.
    private static func streamBody(_ id: Int) -> [UInt8] {
        var text = ""
        for item in streamItems(id) {
            let json = #"{"id":\#(item.id),"index":\#(item.index),"pad":"é✓🎉"}"#
            if id.isMultiple(of: 2) {
                text += json + (item.index % 3 == 2 ? "\r\n" : "\n") + (item.index == 0 ? "\n" : "")
            } else if item.index.isMultiple(of: 2) {
                text += ": item \(item.index)\r\nid: \(id)-\(item.index)\r\ndata: \(json)\r\n\r\n"
            } else {
                // After the first comma, so the `\n` joining the two lines is JSON whitespace.
                let cut = json.index(after: json.firstIndex(of: ",")!)
                text += "id: \(id)-\(item.index)\ndata:\(json[..<cut])\ndata: \(json[cut...])\n\n"
            }
        }
        return Array(text.utf8)
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
