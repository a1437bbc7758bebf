import Endpoints
import Foundation

/// A real HTTP/1.1 server on a loopback socket, for testing HTTP clients end to end.
///
/// The server starts listening as soon as it is created (port `0` picks a free ephemeral port) and
/// serves each connection on its own background thread. Stop it when the test ends; it also stops
/// itself when the last reference goes away.
///
/// ```swift
/// @Test func fetchesUser() async throws {
///     let server = try TestServer()
///     defer { server.stop() }
///     server.route("/users/*") { request in
///         .json(["id": String(request.rawPath.dropFirst("/users/".count))])
///     }
///     let (data, _) = try await URLSession.shared.data(from: server.url("/users/42"))
///     #expect(String(decoding: data, as: UTF8.self) == #"{"id":"42"}"#)
///     #expect(server.requests.last?.method == "GET")
/// }
/// ```
///
/// Custom routes (see ``route(_:_:)``) take precedence over these built-in routes, which answer any method:
///
/// | Path | Response |
/// | --- | --- |
/// | `/echo`, `/echo/…` | 200 JSON describing the request: `method`, `path` (raw), `query` (raw or `null`), `headers` (lower-cased names, repeated values joined with `", "`), `headerList` (`[[name, value]]` as sent), `body` (UTF-8 or `null`), `bodyBase64`. `?status=NNN` (200–599) changes the status. |
/// | `/status/{code}` | That status (200–599) with JSON `{"code": code, "message": "status code"}`; `?retryAfter=V` adds `Retry-After: V`. |
/// | `/redirect?to=URL&status=302` | A redirect (default 302) with `Location: URL`. |
/// | `/redirect-chain/{n}` | 302 to `/redirect-chain/{n-1}`; `/redirect-chain/0` answers like `/echo`. |
/// | `/delay/{ms}` | Like `/echo`, sent after `ms` milliseconds (other connections are unaffected). |
/// | `/trickle?bytes=N&intervalMs=M` | `Content-Length: N`, then one byte every `M` ms (defaults 10 and 100). |
/// | `/close-mid-body` | `Content-Length: 1000`, 10 body bytes, then the connection closes. |
/// | `/malformed-json` | 200 `application/json` with the body `{"broken": `. |
/// | `/json?value=V` | 200 `application/json` whose body is exactly the decoded `V`. |
/// | `/bytes/{n}` | `n` bytes of `application/octet-stream`, byte `i` being `i % 256`. |
/// | `/chunked` | Like `/echo`, sent with `Transfer-Encoding: chunked` in several chunks. |
/// | `/set-cookie?name=N&value=V` | 200 with `Set-Cookie: N=V; Path=/`. |
/// | anything else | 404 JSON `{"code": 404, "message": "not found"}`. |
///
/// Malformed requests get a `400` JSON error and the connection is closed.
public final class TestServer: Sendable {
    /// The signature of a custom route handler.
    public typealias Handler = @Sendable (Request) async -> Response

    private let core: ServerCore

    /// The TCP port the server is listening on (the ephemeral port chosen when created with port `0`).
    public let port: UInt16

    /// The server's root URL, for example `http://127.0.0.1:54321`.
    public let baseURL: URL

    /// Binds to `host:port`, starts listening and starts accepting connections on a background thread.
    ///
    /// ```swift
    /// let server = try TestServer()            // 127.0.0.1, ephemeral port
    /// let v6 = try TestServer(host: "::1")     // IPv6 loopback
    /// ```
    ///
    /// - Parameters:
    ///   - host: A numeric address or host name to bind; defaults to the IPv4 loopback address.
    ///   - port: The port to bind; `0` (the default) lets the system choose a free one.
    /// - Throws: ``SocketError`` when the address cannot be resolved or bound.
    public init(host: String = "127.0.0.1", port: UInt16 = 0) throws {
        let listener = try Socket.listen(host: host, port: port)
        let wake: (read: Int32, write: Int32)
        do {
            wake = try Socket.makePipe()
        } catch {
            Socket.closeDescriptor(listener.fd)
            throw error
        }
        core = ServerCore(listener: listener.fd, wake: wake)
        self.port = listener.port
        let authority = host.contains(":") ? "[\(host)]:\(listener.port)" : "\(host):\(listener.port)"
        baseURL = URL(string: "http://\(authority)") ?? URL(string: "http://127.0.0.1:\(listener.port)")!
        core.start()
    }

    deinit {
        core.stop()
    }

    /// Stops the server: closes the listening socket and shuts down every open connection.
    ///
    /// After it returns, new connections are refused. Calling it again does nothing. Handlers that
    /// are still running finish, but their responses are not sent.
    public func stop() {
        core.stop()
    }

    /// The number of TCP connections accepted so far.
    public var connectionCount: Int {
        core.state.withLock { $0.connectionCount }
    }

    /// The number of HTTP requests fully received so far (malformed requests are not counted).
    public var requestCount: Int {
        core.state.withLock { $0.requests.count }
    }

    /// Every request received so far, in arrival order.
    ///
    /// ```swift
    /// #expect(server.requests.map(\.rawPath) == ["/login", "/me"])
    /// ```
    public var requests: [Request] {
        core.state.withLock { $0.requests }
    }

    /// Registers a custom route, which takes precedence over the built-in routes.
    ///
    /// `path` is compared with the request's raw (undecoded) path. A pattern ending in `/*` matches
    /// that prefix and everything below it (`"/api/*"` matches `/api`, `/api/` and `/api/a/b`);
    /// any other pattern must match exactly. Exact patterns win over prefixes, longer prefixes win
    /// over shorter ones, and registering the same pattern again replaces its handler.
    ///
    /// ```swift
    /// server.route("/login") { request in
    ///     request.method == "POST" ? .json(["token": "abc"]) : .status(405)
    /// }
    /// server.route("/slow/*") { _ in
    ///     try? await Task.sleep(nanoseconds: 100_000_000)
    ///     return .text("done")
    /// }
    /// ```
    ///
    /// Handlers run as tasks, one request at a time per connection. A handler that captures the
    /// server strongly creates a reference cycle, so call ``stop()`` explicitly in that case.
    public func route(_ path: String, _ handler: @escaping Handler) {
        core.state.withLock { state in
            state.routes.removeAll { $0.pattern == path }
            state.routes.append(CustomRoute(pattern: path, handler: handler))
        }
    }

    /// Returns ``baseURL`` followed by `pathAndQuery`, which is used as written (not re-encoded).
    ///
    /// ```swift
    /// server.url("/echo?q=a%20b")  // http://127.0.0.1:PORT/echo?q=a%20b
    /// ```
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + pathAndQuery) ?? baseURL
    }
}
