import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `POST /login?access_token=…&q=…` with a JSON body full of secrets, a bearer token and a cookie.
struct MiddlewareLogin: Endpoint {
    typealias Server = MiddlewareTestServer
    typealias Response = Data
    typealias Auth = HeaderKeyAuth
    static var auth: HeaderKeyAuth { HeaderKeyAuth(key: "unused", header: "X-Client-Key", prefix: nil) }

    struct Body: Encodable, Sendable {
        struct Device: Encodable, Sendable {
            let name: String
            let pushToken: String
            let credentials: [[String: String]]
        }
        let username: String
        let password: String
        let device: Device
    }
    struct ParameterComponents: Sendable {
        let accessToken: String
        let query: String
    }
    struct HeaderComponents: Sendable {
        let bearer: String
        let cookie: String
    }

    static let definition: Definition<MiddlewareLogin> = Definition(
        method: .post,
        path: "login",
        parameters: [.query("access_token", path: \.accessToken), .query("q", path: \.query)],
        headers: [Header.authorization.value(path: \.bearer), Header("Cookie").value(path: \.cookie)]
    )

    let body: Body
    let parameterComponents: ParameterComponents
    let headerComponents: HeaderComponents
}

/// `POST /form` with form fields.
struct MiddlewareForm: Endpoint {
    typealias Server = MiddlewareTestServer
    typealias Response = Data

    struct ParameterComponents: Sendable {
        let username: String
        let password: String
        let clientSecret: String
    }

    static let definition: Definition<MiddlewareForm> = Definition(
        method: .post,
        path: "form",
        parameters: [
            .form("username", path: \.username), .form("password", path: \.password),
            .form("client_secret", path: \.clientSecret),
        ]
    )

    let parameterComponents: ParameterComponents
}

@Suite struct MiddlewareLoggingTests {
    /// Every secret the test sends or receives; none may appear in the log.
    static let secrets = [
        "KEY-5ecr3t-header", "BEARER-5ecr3t", "COOKIE-5ecr3t", "PASSWORD-5ecr3t", "PUSH-5ecr3t",
        "NESTED-5ecr3t", "QUERY-5ecr3t", "USERINFO-5ecr3t", "SETCOOKIE-5ecr3t", "RESPONSE-ACCESS-5ecr3t",
        "RESPONSE-REFRESH-5ecr3t", "FORM-PASSWORD-5ecr3t", "FORM-CLIENT-5ecr3t", "USERNAME-5ecr3t",
    ]

    static func serve() throws -> TestServer {
        let server = try TestServer()
        server.route("/login") { _ in
            var response = TestServer.Response.json(
                raw:
                    #"{"access_token":"RESPONSE-ACCESS-5ecr3t","user":{"name":"ada","refresh_token":"RESPONSE-REFRESH-5ecr3t"}}"#
            )
            response.headers.append((name: "Set-Cookie", value: "sid=SETCOOKIE-5ecr3t; Path=/; HttpOnly"))
            return response
        }
        server.route("/form") { _ in .json(raw: #"{"ok":true}"#) }
        return server
    }

    static func login(_ server: TestServer, logging: LoggingMiddleware, session: URLSession) async throws {
        var components = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
        components.user = "USERNAME-5ecr3t"
        components.password = "USERINFO-5ecr3t"
        let endpoint = MiddlewareLogin(
            body: .init(
                username: "ada",
                password: "PASSWORD-5ecr3t",
                device: .init(name: "phone", pushToken: "PUSH-5ecr3t", credentials: [["secret": "NESTED-5ecr3t"]])
            ),
            parameterComponents: .init(accessToken: "QUERY-5ecr3t", query: "visible-query"),
            headerComponents: .init(bearer: "Bearer BEARER-5ecr3t", cookie: "session=COOKIE-5ecr3t")
        )
        _ = try await session.response(
            with: endpoint,
            environment: components.url!,
            auth: HeaderKeyAuth(key: "KEY-5ecr3t-header", header: "X-Client-Key", prefix: nil),
            middleware: [logging]
        )
    }

    @Test func noSecretReachesTheLogAtAnyLevel() async throws {
        let server = try Self.serve()
        defer { server.stop() }
        let session = makeMiddlewareTestSession()
        let capture = LogCapture()
        for level in LogLevel.allCases {
            let logging = LoggingMiddleware(level: level, sink: capture.sink)
            try await Self.login(server, logging: logging, session: session)
            let form = MiddlewareForm(
                parameterComponents: .init(
                    username: "ada",
                    password: "FORM-PASSWORD-5ecr3t",
                    clientSecret: "FORM-CLIENT-5ecr3t"
                )
            )
            _ = try await session.response(with: form, environment: server.baseURL, middleware: [logging])
        }
        let log = capture.text
        for secret in Self.secrets {
            #expect(!log.contains(secret), "\(secret) leaked into the log")
        }
        // The log is not empty: what is not secret is there.
        #expect(log.contains("POST"))
        #expect(log.contains("visible-query"))
        #expect(log.contains(#""username":"ada""#))
        #expect(log.contains("username=ada"))
        #expect(log.contains(#""name":"phone""#))
        #expect(log.contains("X-Client-Key: <redacted>"))
        #expect(log.contains("Set-Cookie: <redacted>"))
        #expect(log.contains("← #2 200 POST"))
        #expect(server.requestCount == 8)
    }

    @Test func levelsAddHeadersThenBodies() async throws {
        let server = try Self.serve()
        defer { server.stop() }
        let session = makeMiddlewareTestSession()
        var logs: [LogLevel: [String]] = [:]
        for level in LogLevel.allCases {
            let capture = LogCapture()
            try await Self.login(server, logging: LoggingMiddleware(level: level, sink: capture.sink), session: session)
            logs[level] = capture.all
        }
        #expect(logs[.off] == [])
        let basic = try #require(logs[.basic])
        #expect(basic.count == 2)
        #expect(
            basic[0].hasPrefix(
                "→ #1 POST http://<redacted>@127.0.0.1:\(server.port)/login?access_token=<redacted>&q=visible-query [MiddlewareLogin]"
            ))
        #expect(basic[1].hasPrefix("← #1 200 POST http://<redacted>@127.0.0.1:\(server.port)/login"))
        #expect(basic[1].hasSuffix(" ms)"))
        #expect(!basic.joined().contains("Content-Type"))
        let headers = try #require(logs[.headers]).joined(separator: "\n")
        #expect(headers.contains("Content-Type: application/json"))
        #expect(!headers.contains(#""username""#))
        let bodies = try #require(logs[.bodies]).joined(separator: "\n")
        #expect(bodies.contains(#""password":"<redacted>""#))
        #expect(bodies.contains(#""access_token":"<redacted>""#))
    }

    @Test func namesCanBeRevealedOneByOne() async throws {
        let server = try Self.serve()
        defer { server.stop() }
        let capture = LogCapture()
        let logging = LoggingMiddleware(
            level: .bodies,
            redaction: .standard.revealing("X-Client-Key", "password"),
            sink: capture.sink
        )
        try await Self.login(server, logging: logging, session: makeMiddlewareTestSession())
        let log = capture.text
        #expect(log.contains("X-Client-Key: KEY-5ecr3t-header"))
        #expect(log.contains("PASSWORD-5ecr3t"))
        #expect(!log.contains("BEARER-5ecr3t"))
        #expect(!log.contains("PUSH-5ecr3t"))
    }

    @Test func longBodiesAreCutAndBinaryBodiesSummarised() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/long") { _ in .json(raw: #""abcdefghijklmnopqrstuvwxyz""#) }
        server.route("/binary") { _ in TestServer.Response(body: Data((0..<300).map { UInt8($0 % 256) })) }
        let capture = LogCapture()
        let logging = LoggingMiddleware(level: .bodies, maximumBodyBytes: 10, sink: capture.sink)
        let session = makeMiddlewareTestSession()
        _ = try await session.response(
            with: MiddlewareGet("binary"), environment: server.baseURL, middleware: [logging])
        _ = try await session.response(with: MiddlewareGet("long"), environment: server.baseURL, middleware: [logging])
        let log = capture.text
        #expect(log.contains("(300-byte binary body)"))
        #expect(log.contains(#""abcdefghi… (28 bytes, first 10 shown)"#))
    }

    @Test func failuresAreLoggedWithoutTheirDescription() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let url = closed.url("/?token=QUERY-5ecr3t")
        let capture = LogCapture()
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        await #expect(throws: URLError.self) {
            try await sendThrough(LoggingMiddleware(sink: capture.sink), request, session: makeMiddlewareTestSession())
        }
        let log = capture.text
        #expect(log.contains("✗ #1 GET http://127.0.0.1:\(closed.port)/?token=<redacted> failed after"))
        #expect(log.contains("URLError -"))
        #expect(!log.contains("QUERY-5ecr3t"))
    }
}
