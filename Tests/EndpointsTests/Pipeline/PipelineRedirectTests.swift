import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redirects follow the same rules on every platform and through each transport; each test asserts on what the final server
/// actually received.
@Suite struct PipelineRedirectTests {
    /// Answers `path` on `server` with a redirect to `target`.
    private func redirect(_ path: String, on server: TestServer, to target: URL, status: Int = 302) {
        server.route(path) { _ in TestServer.Response(status: status, headers: [("Location", target.absoluteString)]) }
    }

    /// The same URL with `localhost` instead of `127.0.0.1`: another host, the same socket.
    private func viaLocalhost(_ url: URL) -> URL {
        URL(string: url.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost"))!
    }

    private let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key"]

    /// `followsRedirects: false` makes the 3xx the answer, its `Location` readable, whatever the
    /// status, through an endpoint, an ad-hoc request and a stream, on every transport; nothing is
    /// sent to the target. Linux's URLSession hands over the 3xx without its body (it drops the
    /// body of a redirect it does not follow).
    @Test(arguments: [301, 302, 303, 307, 308], TestTransport.all)
    func aRedirectNotFollowedIsTheAnswer(status: Int, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/short") { _ in
            TestServer.Response(status: status, headers: [("Location", "/echo/long")], body: Data("moved".utf8))
        }
        let error = try #require(await send(UnfollowedEndpoint(), to: server, via: transport).failure())
        guard case .errorResponse(let head, let body) = error else {
            Issue.record("expected the \(status) itself, got \(error)")
            return
        }
        #expect(head.statusCode == status)
        #expect(head.value(forHTTPHeaderField: "Location") == "/echo/long")
        #expect(body == (transport.dropsUnfollowedRedirectBodies ? Data() : Data("moved".utf8)))

        let accepted = Request<Void>.get(RequestTarget(server.url("/short").absoluteString))
            .followsRedirects(false).acceptableStatusCodes([status])
        let response = try await transport.client().typedResponse(for: accepted).httpResponse
        #expect(response.statusCode == status)
        #expect(response.value(forHTTPHeaderField: "Location") == "/echo/long")

        let streamed: Int? = await Loopback.$baseURL.withValue(server.baseURL) {
            do throws(UnfollowedEndpoint.TaskError) {
                _ = try await transport.client().bytes(for: UnfollowedEndpoint())
                return nil
            } catch {
                return error.statusCode
            }
        }
        #expect(streamed == status)
        #expect(server.requests.allSatisfy { $0.rawPath == "/short" }, "\(server.requests.map(\.rawPath))")
        #expect(server.requestCount == 3)
    }

    @Test(arguments: TestTransport.all)
    func sameOriginRedirectKeepsCredentials(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        redirect("/start", on: server, to: server.url("/echo/final"))
        let echo = try await send(KeyedEchoEndpoint("start"), to: server, via: transport).get()
        #expect(echo.path == "/echo/final")
        let final = try #require(server.requests.last)
        #expect(final.rawPath == "/echo/final")
        for name in credentialHeaders {
            #expect(final.header(name) != nil, "\(name) was dropped on a same-origin redirect")
        }
        #expect(final.header("X-Api-Key") == "declared-key")
    }

    @Test(arguments: TestTransport.all)
    func redirectToAnotherPortDropsCredentials(via transport: TestTransport) async throws {
        let origin = try TestServer()
        let other = try TestServer()
        defer {
            origin.stop()
            other.stop()
        }
        redirect("/start", on: origin, to: other.url("/echo/final"))
        let echo = try await send(KeyedEchoEndpoint("start"), to: origin, via: transport).get()
        #expect(echo.path == "/echo/final")
        #expect(other.requestCount == 1)
        let final = try #require(other.requests.last)
        for name in credentialHeaders {
            #expect(final.header(name) == nil, "\(name) reached another origin")
        }
        #expect(final.header("X-Trace") == "trace-1", "a header that is not a credential is kept")
    }

    @Test(arguments: TestTransport.all)
    func redirectToAnotherHostNameDropsCredentials(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        redirect("/start", on: server, to: viaLocalhost(server.url("/echo/final")))
        _ = try await send(KeyedEchoEndpoint("start"), to: server, via: transport).get()
        let final = try #require(server.requests.last)
        #expect(final.rawPath == "/echo/final")
        #expect(final.header("Host")?.hasPrefix("localhost:") == true)
        for name in credentialHeaders {
            #expect(final.header(name) == nil, "\(name) reached localhost after 127.0.0.1")
        }
    }

    @Test(arguments: TestTransport.all)
    func perRequestAuthCredentialHeaderIsDroppedAcrossOrigins(via transport: TestTransport) async throws {
        let origin = try TestServer()
        let other = try TestServer()
        defer {
            origin.stop()
            other.stop()
        }
        redirect("/start", on: origin, to: other.url("/echo/final"))
        redirect("/start", on: other, to: other.url("/echo/final"))
        let auth = APIKeyAuth(key: "per-request-key")
        _ = try await send(KeyedEchoEndpoint("start"), to: origin, via: transport, auth: auth).get()
        #expect(origin.requests.last?.header("X-Api-Key") == "per-request-key")
        #expect(other.requests.last?.header("X-Api-Key") == nil)
    }

    @Test(arguments: TestTransport.all)
    func droppedCredentialsStayDroppedBackOnTheOriginalOrigin(via transport: TestTransport) async throws {
        let origin = try TestServer()
        let other = try TestServer()
        defer {
            origin.stop()
            other.stop()
        }
        redirect("/start", on: origin, to: other.url("/bounce"))
        redirect("/bounce", on: other, to: origin.url("/echo/final"))
        let echo = try await send(KeyedEchoEndpoint("start"), to: origin, via: transport).get()
        #expect(echo.path == "/echo/final")
        #expect(origin.requests.map(\.rawPath) == ["/start", "/echo/final"])
        let final = try #require(origin.requests.last)
        for name in credentialHeaders {
            #expect(final.header(name) == nil, "\(name) came back after leaving the origin")
        }
    }

    @Test(arguments: [301, 302, 303], TestTransport.all)
    func postBecomesGetWithoutBody(status: Int, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        redirect("/start", on: server, to: server.url("/echo/final"), status: status)
        let echo = try await send(KeyedPostEndpoint("start"), to: server, via: transport).get()
        #expect(echo.method == "GET")
        let first = try #require(server.requests.first)
        #expect(first.method == "POST")
        #expect(String(decoding: first.body, as: UTF8.self) == #"{"name":"Ada"}"#)
        let final = try #require(server.requests.last)
        #expect(final.rawPath == "/echo/final")
        #expect(final.method == "GET")
        #expect(final.body.isEmpty)
        #expect(final.header("Content-Type") == nil)
        #expect(final.header("Authorization") != nil, "same origin keeps credentials")
    }

    @Test(arguments: [307, 308], TestTransport.all)
    func methodAndBodySurvive(status: Int, via transport: TestTransport) async throws {
        let origin = try TestServer()
        let other = try TestServer()
        defer {
            origin.stop()
            other.stop()
        }
        redirect("/start", on: origin, to: other.url("/echo/final"), status: status)
        let echo = try await send(KeyedPostEndpoint("start"), to: origin, via: transport).get()
        #expect(echo.method == "POST")
        #expect(echo.body == #"{"name":"Ada"}"#)
        let final = try #require(other.requests.last)
        #expect(final.method == "POST")
        #expect(String(decoding: final.body, as: UTF8.self) == #"{"name":"Ada"}"#)
        #expect(final.header("Content-Type") == "application/json")
        #expect(final.header("Authorization") == nil, "another origin gets no credentials")
    }
    // The hop limit (16 on every platform) is tested in HostileRedirectTests.
}

/// `URLSessionTransport` on its own: on Linux a request is sent through the session's companion
/// (see `CompanionSession`), or, when it carries a `mainDocumentURL` of its own, as a
/// completion-handler task on the session itself; both follow the same redirect rules.
@Suite struct TransportRedirectPathTests {
    private func request(to url: URL, mainDocumentURL: URL?) -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        request.setValue("trace-1", forHTTPHeaderField: "X-Trace")
        request.mainDocumentURL = mainDocumentURL
        return request
    }

    @Test(arguments: [nil, URL(string: "https://app.example.com/")])
    func aRedirectToAnotherOriginDropsCredentials(mainDocumentURL: URL?) async throws {
        let origin = try TestServer()
        let other = try TestServer()
        defer {
            origin.stop()
            other.stop()
        }
        let target = other.url("/echo/final")
        origin.route("/start") { _ in TestServer.Response(status: 302, headers: [("Location", target.absoluteString)]) }
        let transport = URLSessionTransport(session: .shared)
        let (_, response) = try await transport.send(
            request(to: origin.url("/start"), mainDocumentURL: mainDocumentURL),
            context: RequestContext(endpointName: "Start", credentialHeaders: ["authorization"]))
        #expect(response.statusCode == 200)
        let final = try #require(other.requests.last)
        #expect(final.rawPath == "/echo/final")
        #expect(final.header("Authorization") == nil)
        #expect(final.header("X-Trace") == "trace-1")
    }

    @Test(arguments: [nil, URL(string: "https://app.example.com/")])
    func aPostRedirectedWith307KeepsItsBody(mainDocumentURL: URL?) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let target = server.url("/echo/final")
        server.route("/start") { _ in TestServer.Response(status: 307, headers: [("Location", target.absoluteString)]) }
        var request = request(to: server.url("/start"), mainDocumentURL: mainDocumentURL)
        request.httpMethod = "POST"
        request.httpBody = Data("payload".utf8)
        let (_, response) = try await URLSessionTransport(session: .shared).send(
            request, context: RequestContext(endpointName: "Start"))
        #expect(response.statusCode == 200)
        let final = try #require(server.requests.last)
        #expect(final.method == "POST")
        #expect(final.body == Data("payload".utf8))
        #expect(final.header("Authorization") == "Bearer secret", "same origin keeps credentials")
    }
}

/// `GET /short`, whose redirect is not followed, its body kept raw.
private struct UnfollowedEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    typealias ErrorResponse = Data
    static let definition: Definition<UnfollowedEndpoint> = Definition(path: "short", followsRedirects: false)
}
