import Foundation
import Testing

/// The WebSocket peers of the suite (scripts/websocket-peers/), from the variables
/// `scripts/websockets.sh run` sets.
///
/// `scripts/websockets.sh run swift test` installs the `websockets` package, Starlette and uvicorn
/// into `.venv-websockets`, makes a throwaway CA, starts every peer on loopback ports the kernel
/// chose, runs the command with the variables set and stops the peers; `scripts/test.sh` does.
/// Without it the suites that use ``Trait/webSocketPeers`` are skipped, saying why. Each peer's
/// paths and what they do are listed at the top of its Python file.
enum WebSocketPeers {
    private static func url(_ name: String) -> URL? {
        ProcessInfo.processInfo.environment[name].flatMap { URL(string: $0) }
    }

    /// `ENDPOINTS_WS_ECHO_URL`, e.g. `ws://127.0.0.1:54321`: the `websockets` package as an echo
    /// server, with `/close/{code}`, `/ping`, `/fragments`, `/size/{n}`, `/subprotocol`, `/headers`
    /// and `/reject/{status}` (scripts/websocket-peers/echo_server.py).
    static let echoURL = url("ENDPOINTS_WS_ECHO_URL")

    /// `ENDPOINTS_WSS_ECHO_URL`, e.g. `wss://127.0.0.1:54322`: the same server over TLS, with a
    /// certificate for `127.0.0.1` and `localhost` signed by ``caFile``.
    static let secureEchoURL = url("ENDPOINTS_WSS_ECHO_URL")

    /// `ENDPOINTS_WS_HOSTILE_URL`, e.g. `ws://127.0.0.1:54323`: a server on raw sockets that breaks
    /// RFC 6455 one way per path (`/handshake/200`, `/frame/rsv1`, `/utf8/invalid-split`,
    /// `/close/1005`, `/length/msb-set`, `/size/over`, `/ping/no-pong`, …) and, for a WebSocket URL
    /// with `?id=NAME`, answers `GET /report/NAME` with the close code the client sent
    /// (scripts/websocket-peers/hostile_server.py).
    static let hostileURL = url("ENDPOINTS_WS_HOSTILE_URL")

    /// `ENDPOINTS_WS_AUTH_URL`, e.g. `http://127.0.0.1:54324`: a Starlette app under uvicorn with
    /// bearer auth on the handshake of `/ws/echo` and `/ws/ticker` (401 without a valid access
    /// token), `POST /login`, `/refresh`, `/test/revoke?user=`, `/test/drop?user=` and
    /// `GET /test/stats?user=` (scripts/websocket-peers/auth_app.py).
    static let authURL = url("ENDPOINTS_WS_AUTH_URL")

    /// `ENDPOINTS_H2_URL`, e.g. `https://127.0.0.1:54325`: an HTTP/2 server over TLS (the `h2`
    /// package, certificate signed by ``caFile``) that breaks RFC 9113 one way per path
    /// (`/goaway-first`, `/reset/{code}`, `/malformed/{kind}`, `/headers/{kib}`, …) and counts the
    /// requests of each `?id=` (`/report?id=`); not a WebSocket peer, but started with them
    /// (scripts/websocket-peers/http2_server.py).
    static let http2URL = url("ENDPOINTS_H2_URL")

    /// `ENDPOINTS_WS_CA_FILE`: the throwaway CA (PEM) that signed the `wss://` peers' certificate.
    static let caFile = ProcessInfo.processInfo.environment["ENDPOINTS_WS_CA_FILE"].map {
        URL(fileURLWithPath: $0)
    }

    /// Whether the script set every variable above.
    static var available: Bool {
        echoURL != nil && secureEchoURL != nil && hostileURL != nil && authURL != nil && http2URL != nil
            && caFile != nil
    }

    /// `path` (with its query, if any) on `base`, e.g. `url(echoURL, "close/4001?reason=bye")`.
    static func url(_ base: URL?, _ path: String) -> URL? {
        base.flatMap { URL(string: path, relativeTo: $0)?.absoluteURL }
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips the suite or test, saying why, unless it runs under `scripts/websockets.sh run`.
    static var webSocketPeers: Self {
        .enabled(
            if: WebSocketPeers.available,
            "ENDPOINTS_WS_ECHO_URL is not set; run `scripts/websockets.sh run swift test` (scripts/test.sh does) to include the WebSocket peer suites"
        )
    }
}
