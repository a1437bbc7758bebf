import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// `EndpointClient()` sends through libcurl on Linux, and through URLSession when libcurl cannot
    /// be loaded, saying so once.
    @Suite struct DefaultTransportTests {
        @Test func theDefaultClientSendsThroughLibcurl() async throws {
            #expect(EndpointClient.defaultTransport is CurlTransport)
            let server = try TestServer()
            defer { server.stop() }
            let echo = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await EndpointClient().response(with: EchoEndpoint())
            }
            #expect(echo.headers["user-agent"]?.contains("libcurl/") == true)
        }

        @Test func withoutLibcurlTheDefaultIsURLSessionAndTheReasonIsGiven() {
            var notices: [String] = []
            let transport = EndpointClient.defaultTransport(
                curl: .failure(CurlUnavailable(reason: "libcurl.so.4 could not be loaded")),
                notice: { notices.append($0.description) })
            #expect(transport is URLSessionTransport)
            #expect(notices == ["libcurl is unavailable: libcurl.so.4 could not be loaded"])
        }

        /// In a process where libcurl cannot be loaded (ENDPOINTS_LIBCURL names a library that does
        /// not exist), `EndpointClient()` still sends, through URLSession, and says why once.
        @Test func aProcessWithoutLibcurlFallsBackToURLSession() async throws {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                setenv("ENDPOINTS_LIBCURL", "/nonexistent/libcurl.so.4", 1)
                let server = try TestServer()
                let echo = try await Loopback.$baseURL.withValue(server.baseURL) {
                    try await EndpointClient().response(with: EchoEndpoint())
                }
                _ = try await Loopback.$baseURL.withValue(server.baseURL) {
                    try await EndpointClient().response(with: EchoEndpoint())
                }
                server.stop()
                exit(
                    echo.path == "/echo" && !(EndpointClient.defaultTransport is CurlTransport)
                        ? EXIT_SUCCESS : EXIT_FAILURE)
            }
            let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(errors.components(separatedBy: "EndpointClient() sends with URLSession.shared instead").count == 2)
            #expect(errors.contains("ENDPOINTS_LIBCURL"))
        }

        /// Without libcurl, a client given TLS trust settings refuses to send rather than drop them.
        @Test func withoutLibcurlTLSTrustIsNeverDropped() async throws {
            await #expect(processExitsWith: .success) {
                setenv("ENDPOINTS_LIBCURL", "/nonexistent/libcurl.so.4", 1)
                let server = try TestServer()
                let client = EndpointClient(tls: .system)
                let result = await Loopback.$baseURL.withValue(server.baseURL) {
                    () async -> Result<Echo, EchoEndpoint.TaskError> in
                    do throws(EchoEndpoint.TaskError) {
                        return .success(try await client.response(with: EchoEndpoint()))
                    } catch {
                        return .failure(error)
                    }
                }
                let refused = server.requestCount == 0 && result.failure()?.urlErrorCode == .secureConnectionFailed
                server.stop()
                exit(refused ? EXIT_SUCCESS : EXIT_FAILURE)
            }
        }
    }
#endif

#if canImport(FoundationNetworking)
    /// The libcurl transport takes its proxy from the environment, as curl does: `http_proxy` for
    /// `http` URLs, unless `no_proxy` names the host. Each case runs in a process of its own, whose
    /// environment it may change.
    @Suite struct CurlProxyTests {
        @Test func httpProxyFromTheEnvironmentIsUsed() async {
            await #expect(processExitsWith: .success) {
                let proxy = try RawServer(reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                setenv("http_proxy", proxy.url.absoluteString, 1)
                let client = EndpointClient(transport: try CurlTransport())
                let body = try await client.response(for: Request<Data>.get("http://example.invalid/through-proxy"))
                let head = proxy.heads.value.first ?? ""
                proxy.stop()
                // A proxy gets the absolute URL in the request line.
                exit(
                    body == Data("ok".utf8) && head.hasPrefix("GET http://example.invalid/through-proxy HTTP/1.1")
                        ? 0 : 1)
            }
        }

        /// Credentials in the proxy's URL (`http://user:password@proxy:port`, percent-encoded) go to
        /// the proxy as `Proxy-Authorization: Basic`, through each Linux transport.
        @Test func credentialsInTheProxysURLGoToTheProxyThroughCurl() async {
            await #expect(processExitsWith: .success) {
                exit(try await Self.sendThroughAProxyWithCredentials(curl: true) ? 0 : 1)
            }
        }

        @Test func credentialsInTheProxysURLGoToTheProxyThroughURLSession() async {
            await #expect(processExitsWith: .success) {
                exit(try await Self.sendThroughAProxyWithCredentials(curl: false) ? 0 : 1)
            }
        }

        /// Whether the proxy in `http_proxy`, with a user and password in its URL, answered and was
        /// sent the credentials.
        static func sendThroughAProxyWithCredentials(curl: Bool) async throws -> Bool {
            let proxy = try RawServer(reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            let port = try #require(proxy.url.port)
            setenv("http_proxy", "http://user:p%40ss@127.0.0.1:\(port)", 1)
            let client =
                curl ? EndpointClient(transport: try CurlTransport()) : EndpointClient(session: URLSession.shared)
            let body = try await client.response(for: Request<Data>.get("http://example.invalid/through-proxy"))
            let head = proxy.heads.value.first ?? ""
            proxy.stop()
            // base64("user:p@ss")
            let authorized = head.contains("\r\nProxy-Authorization: Basic dXNlcjpwQHNz\r\n")
            if !authorized { FileHandle.standardError.write(Data("PROXY-HEAD \(head)\n".utf8)) }
            return body == Data("ok".utf8) && authorized
        }

        @Test func noProxyExemptsAHost() async {
            await #expect(processExitsWith: .success) {
                exit(try await Self.reachesTheServerStraight(noProxy: "127.0.0.1") { try CurlTransport() } ? 0 : 1)
            }
        }

        /// `.direct` reaches the server straight, whatever `http_proxy` says.
        @Test func aDirectTransportIgnoresTheEnvironmentsProxy() async {
            await #expect(processExitsWith: .success) {
                exit(try await Self.reachesTheServerStraight { try CurlTransport(proxy: .direct) } ? 0 : 1)
            }
        }

        /// Whether the transport `make` gives, made once `http_proxy` names a proxy (and `no_proxy`
        /// is `noProxy`), reaches the loopback server without it.
        static func reachesTheServerStraight(
            noProxy: String? = nil, _ make: () throws -> CurlTransport
        ) async throws -> Bool {
            let proxy = try RawServer(reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            let server = try TestServer()
            setenv("http_proxy", proxy.url.absoluteString, 1)
            if let noProxy { setenv("no_proxy", noProxy, 1) }
            let client = EndpointClient(transport: try make())
            let echo = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.response(with: EchoEndpoint())
            }
            let proxied = proxy.heads.value.count
            proxy.stop()
            server.stop()
            return echo.path == "/echo" && proxied == 0
        }

        /// A proxy given to the transport is used for every host but those it bypasses:
        /// `no_proxy` is not read, nor `http_proxy`.
        @Test func aGivenProxyIgnoresTheEnvironment() async {
            await #expect(processExitsWith: .success) {
                let proxy = try RawServer(reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                setenv("http_proxy", "http://127.0.0.1:9", 1)
                setenv("no_proxy", "127.0.0.1,example.invalid", 1)
                let client = EndpointClient(transport: try CurlTransport(proxy: .init(proxy.url)))
                let body = try await client.response(for: Request<Data>.get("http://example.invalid/through-proxy"))
                let head = proxy.heads.value.first ?? ""
                proxy.stop()
                exit(
                    body == Data("ok".utf8) && head.hasPrefix("GET http://example.invalid/through-proxy HTTP/1.1")
                        ? 0 : 1)
            }
        }

        /// A proxy that answers an https request's `CONNECT` with a status instead of a tunnel:
        /// libcurl reports a receive error, as for a lost connection (which `RetryMiddleware`
        /// retries), and Linux's URLSession `-1`. Both transports now say what the proxy did: 407
        /// is `.userAuthenticationRequired`, another status `.cannotConnectToHost`, an answer that
        /// is not HTTP `.badServerResponse`.
        @Test func aProxyThatRefusesTheTunnelSaysSoThroughEachTransport() async throws {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let cases: [(reply: String, code: URLError.Code)] = [
                    (
                        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\n"
                            + "Content-Length: 0\r\n\r\n", .userAuthenticationRequired
                    ),
                    ("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n", .cannotConnectToHost),
                    ("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n", .cannotConnectToHost),
                    ("SSH-2.0-OpenSSH_9.2\r\n\r\n", .badServerResponse),
                ]
                var failed = false
                for (reply, expected) in cases {
                    let proxy = try RawServer(reply: reply)
                    setenv("https_proxy", proxy.url.absoluteString, 1)
                    let transports: [(String, any HTTPTransport)] = [
                        ("curl", try CurlTransport()),
                        ("urlSession", URLSessionTransport(session: URLSession(configuration: .ephemeral))),
                    ]
                    for (name, transport) in transports {
                        let client = EndpointClient(transport: transport)
                        let request = Request<Data>.get("https://example.invalid/tunnel")
                        var code: URLError.Code?
                        do throws(EndpointTaskError<EmptyCodable>) {
                            _ = try await client.response(for: request)
                        } catch {
                            code = error.urlErrorCode
                        }
                        if code != expected {
                            failed = true
                            FileHandle.standardError.write(
                                Data(
                                    "mismatch: \(name), \(reply.prefix(12)): \(String(describing: code)), not \(expected)\n"
                                        .utf8))
                        }
                    }
                    // The tunnel was asked for, and nothing else was sent to the proxy.
                    if !proxy.heads.value.allSatisfy({ $0.hasPrefix("CONNECT example.invalid:443 ") }) {
                        failed = true
                        FileHandle.standardError.write(Data("mismatch: heads \(proxy.heads.value)\n".utf8))
                    }
                    proxy.stop()
                }
                exit(failed ? 1 : 0)
            }
            let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(!said.contains("mismatch: "), "\(said)")
        }
    }
#endif
