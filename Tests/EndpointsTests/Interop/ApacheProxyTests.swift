#if canImport(FoundationNetworking)
    import EndpointsTestServer
    import Foundation
    import FoundationNetworking
    import Testing

    @testable import Endpoints

    /// The forward proxies of `scripts/apache.sh` (mod_proxy), from its variables: one asks for
    /// Basic, one for Digest, both for user "user" with password "passwd".
    private enum ApacheProxy {
        private static let environment = ProcessInfo.processInfo.environment
        static let basic: URL? = environment["APACHE_PROXY_BASIC_URL"].flatMap { URL(string: $0) }
        static let digest: URL? = environment["APACHE_PROXY_DIGEST_URL"].flatMap { URL(string: $0) }
        static let isRunning = basic != nil && digest != nil

        /// A transport through the proxy at `url`, with the user's credentials.
        static func transport(
            _ url: URL?, password: String = "passwd", bypassing: [String] = [], tls: TLSTrust? = nil
        ) throws -> CurlTransport {
            let proxy = try CurlTransport.Proxy(
                #require(url), username: "user", password: password, bypassing: bypassing)
            return try CurlTransport(tls: tls, proxy: proxy)
        }

        /// The status of each request the proxies logged whose request line holds `marker`, once
        /// the last of them is `final` (Apache logs a request as it ends, maybe just after the
        /// client has its answer; the refused ones before it, on the same connection, are
        /// already logged then).
        static func statuses(for marker: String, endingWith final: String) async throws -> [String] {
            let log = URL(fileURLWithPath: environment["APACHE_PROXY_LOG"] ?? "/nonexistent")
            let deadline = Date().addingTimeInterval(TestTiming.giveUp)
            var statuses: [String] = []
            while Date() < deadline {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                statuses = text.split(separator: "\n").filter { $0.contains(marker) }.map {
                    String($0.split(separator: " ")[1])
                }
                if statuses.last == final { return statuses }
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            Issue.record("the proxy logged \(statuses) for \(marker), not a last \(final)")
            return statuses
        }
    }

    /// `GET /echo/{marker}` of the loopback server, decoded as ``Echo``: the marker finds the
    /// request in the proxy's log.
    private struct MarkedEcho: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Echo
        typealias ErrorResponse = Data
        struct PathComponents: Sendable { let marker: String }

        static let definition: Definition<MarkedEcho> = Definition(path: "echo/\(path: \.marker)")

        let pathComponents: PathComponents

        init(_ marker: String = UUID().uuidString) { pathComponents = PathComponents(marker: marker) }
        var marker: String { pathComponents.marker }
    }

    /// `POST /echo/{marker}` with a JSON body, decoded as ``Echo``.
    private struct MarkedPost: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Echo
        typealias ErrorResponse = Data
        struct PathComponents: Sendable { let marker: String }
        struct Body: Encodable, Sendable { let name: String }

        static let definition: Definition<MarkedPost> = Definition(method: .post, path: "echo/\(path: \.marker)")

        let pathComponents = PathComponents(marker: UUID().uuidString)
        let body = Body(name: "Ada")
    }

    /// `POST /echo/{marker}` with no body of its own: a file's, uploaded.
    private struct MarkedUpload: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Echo
        typealias ErrorResponse = Data
        struct PathComponents: Sendable { let marker: String }

        static let definition: Definition<MarkedUpload> = Definition(method: .post, path: "echo/\(path: \.marker)")

        let pathComponents = PathComponents(marker: UUID().uuidString)
    }

    /// ``CurlTransport/Proxy`` through Apache httpd's forward proxy, the loopback server behind
    /// it (and nginx over TLS, through a tunnel): requests reach the server through the proxy,
    /// Basic goes with the first request, Digest is learnt from the proxy's 407 and answered from
    /// then on, refused credentials reach the caller, and the proxy's credentials never reach the
    /// server. Serialized: the tests read one log.
    @Suite(
        .serialized,
        .enabled(
            if: ApacheProxy.isRunning,
            "APACHE_PROXY_BASIC_URL is not set; run `scripts/apache.sh run swift test` to include the proxy suite"
        )
    )
    struct ApacheProxyTests {
        @Test func aBasicProxyCarriesEachRequestAtOnce() async throws {
            let server = try TestServer()
            defer { server.stop() }
            let client = EndpointClient(transport: try ApacheProxy.transport(ApacheProxy.basic))
            for _ in 0..<2 {
                let endpoint = MarkedEcho()
                let echo = try await client.send(endpoint, to: server.baseURL).get().value
                #expect(echo.path == "/echo/\(endpoint.marker)")
                // The server got it from the proxy, without the proxy's credentials.
                #expect(echo.headers["via"]?.hasPrefix("1.1 ") == true, "\(echo.headers)")
                #expect(echo.headers["proxy-authorization"] == nil)
                #expect(try await ApacheProxy.statuses(for: endpoint.marker, endingWith: "200") == ["200"])
            }
            #expect(server.requestCount == 2)
        }

        /// Basic, refused by a proxy that asks for Digest: the request goes again with Digest
        /// (libcurl takes the nonce from a 407 and answers it), and so do the next ones, without
        /// Basic.
        @Test func aDigestProxyIsLearntFromItsFirst407() async throws {
            let server = try TestServer()
            defer { server.stop() }
            let client = EndpointClient(transport: try ApacheProxy.transport(ApacheProxy.digest))
            let first = MarkedEcho()
            #expect(try await client.send(first, to: server.baseURL).get().value.path == "/echo/\(first.marker)")
            #expect(try await ApacheProxy.statuses(for: first.marker, endingWith: "200") == ["407", "407", "200"])
            for _ in 0..<2 {
                let next = MarkedEcho()
                let echo = try await client.send(next, to: server.baseURL).get().value
                #expect(echo.headers["proxy-authorization"] == nil)
                #expect(echo.headers["via"] != nil)
                #expect(try await ApacheProxy.statuses(for: next.marker, endingWith: "200") == ["407", "200"])
            }
            #expect(server.requestCount == 3)
        }

        /// The answer after libcurl's own round with the proxy is the server's: a streamed head,
        /// a body sent again.
        @Test func throughADigestProxyTheServersAnswerIsTheOneHandedOver() async throws {
            let server = try TestServer()
            defer { server.stop() }
            let client = EndpointClient(transport: try ApacheProxy.transport(ApacheProxy.digest))
            let post = MarkedPost()
            let echo = try await client.send(post, to: server.baseURL).get().value
            #expect(echo.method == "POST" && echo.body == #"{"name":"Ada"}"#)
            let endpoint = MarkedEcho()
            let stream = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.bytes(for: endpoint)
            }
            #expect(stream.response.statusCode == 200)
            var body = Data()
            for try await chunk in stream { body.append(chunk) }
            let streamed = try JSONDecoder().decode(Echo.self, from: body)
            #expect(streamed.path == "/echo/\(endpoint.marker)")
            #expect(try await ApacheProxy.statuses(for: endpoint.marker, endingWith: "200") == ["407", "200"])
        }

        /// A file uploaded through a Digest proxy, by a transport that has not learnt it yet: sent
        /// with Basic, refused, sent again, sent without credentials for the nonce and once more
        /// answered, the file read afresh each time (libcurl rewinds it); the server gets it whole, once.
        @Test func aFileGoesThroughADigestProxyWhole() async throws {
            let server = try TestServer()
            defer { server.stop() }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "proxy-upload-\(UUID().uuidString)")
            let text = String(repeating: "0123456789abcdef", count: 12_800)  // 200 KiB
            try Data(text.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let client = EndpointClient(transport: try ApacheProxy.transport(ApacheProxy.digest))
            let endpoint = MarkedUpload()
            let echo = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.upload(endpoint, fromFile: file)
            }
            #expect(echo.body == text)
            #expect(server.requestCount == 1)
            let statuses = try await ApacheProxy.statuses(for: endpoint.pathComponents.marker, endingWith: "200")
            #expect(statuses == ["407", "407", "200"])
        }

        /// A wrong password: the proxy's 407 is the answer, after one more try with Digest for the
        /// proxy that asks for it; the server never sees the request.
        @Test(arguments: [true, false])
        func refusedCredentialsReachTheCaller(digest: Bool) async throws {
            let server = try TestServer()
            defer { server.stop() }
            let transport = try ApacheProxy.transport(
                digest ? ApacheProxy.digest : ApacheProxy.basic, password: "wrong")
            let endpoint = MarkedEcho()
            let error = try #require(
                await EndpointClient(transport: transport).send(endpoint, to: server.baseURL).failure())
            #expect(error.statusCode == 407)
            let statuses = try await ApacheProxy.statuses(for: endpoint.marker, endingWith: "407")
            #expect(statuses == (digest ? ["407", "407", "407"] : ["407"]))
            #expect(server.requestCount == 0)
        }

        /// An https request goes through a tunnel (`CONNECT`), TLS end to end with nginx: Basic at
        /// once, Digest learnt from the tunnel's 407; wrong credentials are
        /// `.userAuthenticationRequired`.
        @Test(.enabled(if: Nginx.isRunning, Nginx.skipReason), arguments: [true, false])
        func httpsGoesThroughATunnel(digest: Bool) async throws {
            let trust = try TLSTrust(certificateAuthorities: [Nginx.certificateAuthority], trustsSystemRoots: false)
            let proxy = digest ? ApacheProxy.digest : ApacheProxy.basic
            let client = EndpointClient(transport: try ApacheProxy.transport(proxy, tls: trust))
            for _ in 0..<2 {
                let json = try await client.send(NginxJSON(), to: Nginx.Server.https.url).get().value
                #expect(json.secure)
            }
            let refused = EndpointClient(transport: try ApacheProxy.transport(proxy, password: "wrong", tls: trust))
            let error = try #require(await refused.send(NginxJSON(), to: Nginx.Server.https.url).failure())
            #expect(error.urlErrorCode == .userAuthenticationRequired, "\(error)")
        }

        /// A WebSocket's handshake takes a tunnel through the proxy, learning Digest as a request
        /// does; the tunnel is logged once it closes.
        @Test func aWebSocketGoesThroughATunnel() async throws {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/ws") { request in .webSocket(request) { text in ["echo: \(text)"] } }
            let client = EndpointClient(transport: try ApacheProxy.transport(ApacheProxy.digest))
            let connection = try await client.webSocket(LoopbackText(), environment: server.baseURL)
            var iterator = connection.makeAsyncIterator()
            try await connection.send("hello")
            #expect(try await iterator.next() == "echo: hello")
            try connection.close()
            #expect(try await iterator.next() == nil)
            let port = try #require(server.baseURL.port)
            let tunnel = "CONNECT 127.0.0.1:\(port) "
            #expect(try await ApacheProxy.statuses(for: tunnel, endingWith: "200") == ["407", "407", "200"])
        }

        /// A host to bypass is reached straight, and the proxy never sees the request.
        @Test func aBypassedHostIsReachedStraight() async throws {
            let server = try TestServer()
            defer { server.stop() }
            let transport = try ApacheProxy.transport(ApacheProxy.basic, bypassing: ["example.com", "127.0.0.1"])
            let echo = try await EndpointClient(transport: transport).send(MarkedEcho(), to: server.baseURL).get().value
            #expect(echo.headers["via"] == nil)
        }
    }
#endif
