import EndpointsTestServer
import Foundation

/// The embedded service the tour talks to unless `--base-url` names another: a loopback
/// `TestServer` that behaves like a small real API.
///
/// - `POST /login` `{"username", "password"}` → tokens; the access token expires after
///   `tokenLifetime` seconds, the refresh token is single-use.
/// - `POST /refresh` `{"refreshToken"}` → a new pair (the old refresh token stops working).
/// - `GET /me`, `GET /items?page=&perPage=`, `GET /users/{id}` → need a live access token,
///   else 401 `{"code": 401, "message": "…"}`; unknown users are 404.
/// - `GET /status` → 503 with `Retry-After: 1` every other call, else 200.
/// - `GET /archive` → 256 KiB; the first call's connection drops after 96 KiB, later calls answer
///   `Range` with `If-Range` (a 206).
/// - `POST /oauth/token` → an OAuth 2.0 token endpoint for the client credentials grant of the
///   client `demo-service` (`client_secret_basic`); its access tokens work on `/me`.
final class DemoService: Sendable {
    static let password = "correct horse battery staple"
    static let clientSecret = "demo-client-secret"

    let http: TestServer
    let tokenLifetime: TimeInterval
    private let state = ServiceState()

    var baseURL: URL { http.baseURL }

    init(name: String, tokenLifetime: TimeInterval = 3) throws {
        http = try TestServer()
        self.tokenLifetime = tokenLifetime
        let state = state
        let lifetime = tokenLifetime
        http.route("/login") { request in
            let body = (try? JSONDecoder().decode([String: String].self, from: request.body)) ?? [:]
            guard body["password"] == DemoService.password else {
                return .json(raw: #"{"code":401,"message":"wrong user name or password"}"#, status: 401)
            }
            return .json(state.issue(lifetime: lifetime, prefix: name))
        }
        http.route("/refresh") { request in
            let body = (try? JSONDecoder().decode([String: String].self, from: request.body)) ?? [:]
            guard let tokens = state.refresh(body["refreshToken"] ?? "", lifetime: lifetime, prefix: name) else {
                return .json(raw: #"{"code":401,"message":"refresh token already used"}"#, status: 401)
            }
            return .json(tokens)
        }
        http.route("/me") { request in
            guard state.accepts(request) else { return Self.expired }
            return .json(Profile(id: 1, name: "Ada Lovelace (\(name))", email: "ada@example.com"))
        }
        http.route("/items") { request in
            guard state.accepts(request) else { return Self.expired }
            let page = max(1, Int(request.queryValue("page") ?? "") ?? 1)
            let perPage = min(50, max(1, Int(request.queryValue("perPage") ?? "") ?? 10))
            let total = 25
            let ids = Array(stride(from: (page - 1) * perPage + 1, through: min(total, page * perPage), by: 1))
            let items = ids.map { ItemPage.Item(id: $0, title: "Item \($0)") }
            return .json(ItemPage(items: items, page: page, nextPage: page * perPage < total ? page + 1 : nil))
        }
        http.route("/users/*") { request in
            guard state.accepts(request) else { return Self.expired }
            guard let id = Int(request.rawPath.split(separator: "/").last ?? ""), id == 1 else {
                return .json(raw: #"{"code":404,"message":"no such user"}"#, status: 404)
            }
            return .json(Profile(id: 1, name: "Ada Lovelace (\(name))", email: "ada@example.com"))
        }
        http.route("/oauth/token") { request in
            let client = "Basic " + Data("demo-service:\(DemoService.clientSecret)".utf8).base64EncodedString()
            guard request.header("Authorization") == client,
                String(decoding: request.body, as: UTF8.self).hasPrefix("grant_type=client_credentials")
            else { return .json(raw: #"{"error":"invalid_client"}"#, status: 401) }
            let access = state.issue(lifetime: 3600, prefix: name).accessToken
            return .json(
                raw: #"{"access_token":"\#(access)","token_type":"Bearer","expires_in":3600,"scope":"profile"}"#)
        }
        http.route("/version") { _ in .json(["status": "1.0"]) }
        // A catalog that must be revalidated on each use: 304 when the client still has it.
        http.route("/catalog") { request in
            let tag = "\"catalog-v1\""
            if request.header("If-None-Match") == tag {
                return TestServer.Response(status: 304, headers: [(name: "ETag", value: tag)])
            }
            var catalog = TestServer.Response.json(raw: #"["tea","coffee","cocoa"]"#)
            catalog.headers += [(name: "ETag", value: tag), (name: "Cache-Control", value: "no-cache")]
            return catalog
        }
        // 256 KiB whose first download loses its connection after 96 KiB; later ones are
        // answered as a static file server does, `Range` with `If-Range` included.
        http.route("/archive") { request in
            let tag = "\"archive-v1\""
            guard state.nextArchiveCall() > 1 else {
                var dropped = TestServer.Response.streamed([Self.archive.prefix(96 << 10)], then: .drop)
                dropped.headers.append((name: "ETag", value: tag))
                return dropped
            }
            return .file(Self.archive, etag: tag, for: request)
        }
        http.route("/ticks") { _ in
            let events = (1...5).map { Data("data: {\"n\":\($0)}\n\n".utf8) }
            return .streamed(events, pause: .milliseconds(100), contentType: "text/event-stream")
        }
        // A WebSocket ticker: each {"symbol", "count"} the client sends is answered with `count` quotes.
        http.route("/quotes") { request in
            guard state.accepts(request) else { return Self.expired }
            return .webSocket(request) { text in
                guard let subscription = try? JSONDecoder().decode(Subscription.self, from: Data(text.utf8)) else {
                    return [#"{"code":400,"message":"send {\"symbol\": …, \"count\": …}"}"#]
                }
                return (1...max(1, min(subscription.count, 100))).map { sequence in
                    let quote = Quote(
                        symbol: subscription.symbol, price: 100 + Double(sequence) * 1.25, sequence: sequence)
                    return String(decoding: (try? JSONEncoder().encode(quote)) ?? Data(), as: UTF8.self)
                }
            }
        }
        http.route("/status") { _ in
            guard state.nextStatusIsUnavailable() else { return .json(["status": "ok"]) }
            var busy = TestServer.Response.json(raw: #"{"code":503,"message":"busy, try again"}"#, status: 503)
            busy.headers.append((name: "Retry-After", value: "1"))
            return busy
        }
    }

    func stop() { http.stop() }

    /// How many refreshes the service performed.
    var refreshes: Int { state.snapshot.refreshes }

    /// How many API requests it rejected for an expired or unknown access token.
    var rejected: Int { state.snapshot.rejected }

    /// What `GET /archive` serves.
    static let archive = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 * 7) })

    private static let expired = TestServer.Response.json(
        raw: #"{"code":401,"message":"access token expired or unknown"}"#, status: 401)
}

/// What the ticker receives and sends (`/quotes`).
private struct Subscription: Decodable {
    let symbol: String
    let count: Int
}

private struct Quote: Encodable {
    let symbol: String
    let price: Double
    let sequence: Int
}

/// The service's tokens and counters.
private final class ServiceState: @unchecked Sendable {
    // @unchecked Sendable: every read and write of `value` holds `lock`.
    struct Value {
        var access: [String: Date] = [:]
        var refresh: Set<String> = []
        var issued = 0
        var refreshes = 0
        var rejected = 0
        var statusCalls = 0
        var archiveCalls = 0
    }

    private let lock = NSLock()
    private var value = Value()

    var snapshot: Value { locked { $0 } }

    func issue(lifetime: TimeInterval, prefix: String) -> Tokens {
        locked { Self.issue(&$0, lifetime: lifetime, prefix: prefix) }
    }

    func refresh(_ token: String, lifetime: TimeInterval, prefix: String) -> Tokens? {
        locked { value in
            guard value.refresh.remove(token) != nil else { return nil }
            value.refreshes += 1
            return Self.issue(&value, lifetime: lifetime, prefix: prefix)
        }
    }

    func accepts(_ request: TestServer.Request) -> Bool {
        let header = request.header("Authorization") ?? ""
        let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
        return locked { value in
            let live = value.access[token].map { $0 > Date() } ?? false
            if !live { value.rejected += 1 }
            return live
        }
    }

    func nextStatusIsUnavailable() -> Bool {
        locked { value in
            value.statusCalls += 1
            return value.statusCalls % 2 == 1
        }
    }

    /// Counts a `GET /archive`, returning how many there were.
    func nextArchiveCall() -> Int {
        locked { value in
            value.archiveCalls += 1
            return value.archiveCalls
        }
    }

    private static func issue(_ value: inout Value, lifetime: TimeInterval, prefix: String) -> Tokens {
        value.issued += 1
        let access = "\(prefix)-access-\(value.issued)-\(UUID().uuidString.prefix(8))"
        let refresh = "\(prefix)-refresh-\(value.issued)-\(UUID().uuidString.prefix(8))"
        value.access[access] = Date().addingTimeInterval(lifetime)
        value.refresh.insert(refresh)
        return Tokens(accessToken: access, refreshToken: refresh, expiresIn: lifetime)
    }

    private func locked<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
