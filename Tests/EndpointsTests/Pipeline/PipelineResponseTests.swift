import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each response kind, and each way a response can fail, over real HTTP.
@Suite struct PipelineResponseTests {
    @Test func decodableResponseIsDecoded() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let echo = try await send(EchoEndpoint("echo"), to: server).get()
        #expect(echo.method == "GET")
        #expect(echo.path == "/echo")
    }

    @Test func voidResponseAccepts204() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/things") { _ in .status(204) }
        try await send(DeleteEndpoint("things"), to: server).get()
        #expect(server.requests.last?.method == "DELETE")
    }

    @Test func voidResponseIgnoresABody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/things") { _ in .text("not json at all") }
        try await send(DeleteEndpoint("things"), to: server).get()
    }

    @Test func dataResponseIsTheRawBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let data = try await send(BytesEndpoint(count: 1000), to: server).get()
        #expect(data == Data((0..<1000).map { UInt8($0 % 256) }))
    }

    @Test func decodedErrorBodyKeepsStatusAndHeaders() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/limited") { _ in
            var response = TestServer.Response.json(raw: #"{"code": 429, "message": "slow down"}"#, status: 429)
            response.headers.append((name: "Retry-After", value: "7"))
            response.headers.append((name: "X-Secret", value: "s3cr3t-header-value"))
            return response
        }
        let error = try #require(await send(EchoEndpoint("limited"), to: server).failure())
        guard case .errorResponse(let http, let body) = error else {
            Issue.record("expected .errorResponse, got \(error)")
            return
        }
        #expect(http.statusCode == 429)
        #expect(http.value(forHTTPHeaderField: "Retry-After") == "7")
        #expect(body == APIError(code: 429, message: "slow down"))
        #expect(error.statusCode == 429)
        #expect(error.description.hasPrefix("The server answered with status 429"))
        #expect(!error.description.contains("s3cr3t"))
    }

    /// An optional `Response` is `nil` for an empty body (a 204 answering "nothing there"), as in
    /// Get's client, through an endpoint and an ad-hoc request; a body is decoded as before, and a
    /// `Response` that is not optional still fails on an empty body.
    @Test func anOptionalResponseIsNilForAnEmptyBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/nothing") { _ in .status(204) }
        server.route("/blank") { _ in .text("") }
        #expect(try await send(MaybeEchoEndpoint("nothing"), to: server).get() == nil)
        #expect(try await send(MaybeEchoEndpoint("blank"), to: server).get() == nil)
        #expect(try await send(MaybeEchoEndpoint("echo"), to: server).get()?.path == "/echo")
        let adHoc = Request<Echo?>.get(RequestTarget(server.url("/nothing").absoluteString))
        #expect(try await URLSession.shared.response(for: adHoc) == nil)
        guard case .responseParseError = try #require(await send(EchoEndpoint("nothing"), to: server).failure())
        else {
            Issue.record("a Response that is not optional decoded an empty body")
            return
        }
    }

    /// A `String` response is the body's text when JSON cannot decode it (a plain-text answer),
    /// as in Get and Alamofire, through an endpoint and an ad-hoc request; a JSON string decodes as
    /// JSON, as in Endpoints 0.4, and bytes that are not UTF-8 still fail.
    @Test func aStringResponseIsTheTextOfAPlainTextBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/text") { _ in .text("plain, not JSON ✓") }
        server.route("/json") { _ in .json(raw: #""a JSON string""#) }
        server.route("/object") { _ in .json(raw: #"{"a": 1}"#) }
        server.route("/binary") { _ in TestServer.Response(status: 200, body: Data([0xFF, 0xFE, 0x00])) }
        #expect(try await send(TextEndpoint("text"), to: server).get() == "plain, not JSON ✓")
        #expect(try await send(TextEndpoint("json"), to: server).get() == "a JSON string")
        #expect(try await send(TextEndpoint("object"), to: server).get() == #"{"a": 1}"#)
        guard
            case .responseParseError(_, let data, _) = try #require(
                await send(TextEndpoint("binary"), to: server).failure())
        else {
            Issue.record("bytes that are not UTF-8 decoded as a String")
            return
        }
        #expect(data == Data([0xFF, 0xFE, 0x00]))
        let adHoc = Request<String>.get(RequestTarget(server.url("/text").absoluteString))
        #expect(try await URLSession.shared.response(for: adHoc) == "plain, not JSON ✓")
    }

    /// A `String` error body is the text of an error page JSON cannot decode, as a `String`
    /// response is; a JSON string decodes as JSON.
    @Test func aStringErrorResponseIsTheTextOfAnErrorPage() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/gateway") { _ in .text("<html>bad gateway</html>", status: 502) }
        server.route("/quoted") { _ in .json(raw: #""slow down""#, status: 429) }
        for (route, expected) in [("gateway", "<html>bad gateway</html>"), ("quoted", "slow down")] {
            let error = try #require(await send(TextErrorEndpoint(route), to: server).failure())
            guard case .errorResponse(_, let text) = error else {
                Issue.record("expected .errorResponse, got \(error)")
                continue
            }
            #expect(text == expected)
        }
    }

    /// An `ErrorResponse` of `Data` is the body as received, as a `Response` of `Data` is, through
    /// an endpoint and an ad-hoc request alike; it used to be decoded as JSON (a base64 string).
    @Test func dataErrorResponseIsTheRawBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/teapot") { _ in .text("<html>short and stout</html>", status: 418) }
        let error = try #require(await send(RawRouteEndpoint("teapot"), to: server).failure())
        guard case .errorResponse(let http, let body) = error else {
            Issue.record("expected .errorResponse, got \(error)")
            return
        }
        #expect(http.statusCode == 418)
        #expect(body == Data("<html>short and stout</html>".utf8))
        let request = Request<Data>.get(RequestTarget(server.url("/teapot").absoluteString)).errorBody(Data.self)
        do {
            _ = try await URLSession.shared.response(for: request)
            Issue.record("expected the 418")
        } catch {
            guard case .errorResponse(_, let adHocBody) = error else {
                Issue.record("expected .errorResponse, got \(error)")
                return
            }
            #expect(adHocBody == body)
        }
    }

    @Test func undecodableErrorBodyIsKeptRaw() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/broken") { _ in .text("<html>bad gateway</html>", status: 502) }
        let error = try #require(await send(EchoEndpoint("broken"), to: server).failure())
        guard case .errorResponseParseError(let http, let data, _) = error else {
            Issue.record("expected .errorResponseParseError, got \(error)")
            return
        }
        #expect(http.statusCode == 502)
        #expect(String(decoding: data, as: UTF8.self) == "<html>bad gateway</html>")
        #expect(error.responseData == data)
        #expect(error.description.hasPrefix("The server answered with status 502"))
    }

    @Test func malformedSuccessBodyIsKeptRaw() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = try #require(await send(EchoEndpoint("malformed-json"), to: server).failure())
        guard case .responseParseError(let http, let data, let failure) = error else {
            Issue.record("expected .responseParseError, got \(error)")
            return
        }
        #expect(http.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"broken": "#)
        #expect(failure.codingPath == "")
        #expect(error.description.hasPrefix("The server answered with status 200 but"))
    }

    @Test func decodingFailureNamesTheCodingPath() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/items") { _ in .json(raw: #"{"items": [{"name": "a"}, {"name": 2}]}"#) }
        let error = try #require(await send(ItemsEndpoint("items"), to: server).failure())
        guard case .responseParseError(_, let data, let failure) = error else {
            Issue.record("expected .responseParseError, got \(error)")
            return
        }
        #expect(failure.codingPath == "items[1].name")
        #expect(data.count > 0)
        #expect(error.description.contains("items[1].name"))
    }

    @Test func refusedConnectionIsALoadError() async throws {
        let closed = try ClosedPort()
        defer { closed.close() }
        let error = try #require(await send(EchoEndpoint("echo"), at: closed.baseURL).failure())
        #expect(error.urlErrorCode == .cannotConnectToHost)
        #expect(error.description.hasPrefix("The request failed to load"))
    }

    @Test func connectionClosedMidBodyIsALoadError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = try #require(await send(EchoEndpoint("close-mid-body"), to: server).failure())
        // Both platforms: corelibs' `.unknown` (-1) for it is mapped (see PartialTransferTests).
        #expect(error.urlErrorCode == .networkConnectionLost, "got \(error)")
        #expect(error.description.hasPrefix("The request failed to load"))
    }

    @Test func descriptionsNeverPrintRequestCredentials() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/denied") { _ in .json(raw: #"{"code": 403, "message": "no"}"#, status: 403) }
        let auth = APIKeyAuth(key: "top-secret-key")
        let failures = [
            await send(KeyedEchoEndpoint("denied"), to: server, auth: auth).failure(),
            await send(KeyedEchoEndpoint("malformed-json"), to: server, auth: auth).failure(),
            await send(KeyedEchoEndpoint("close-mid-body"), to: server, auth: auth).failure(),
        ]
        for error in failures.compactMap({ $0 }) {
            #expect(error.description.first?.isUppercase == true, "\(error.description)")
            #expect(!error.description.contains("top-secret-key"), "\(error.description)")
        }
    }
}

/// `GET /{route}`, decoded as an optional ``Echo``.
private struct MaybeEchoEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo?
    static let definition: Definition<MaybeEchoEndpoint> = Definition(path: "\(path: \.route)")
    let pathComponents: Route
    init(_ route: String) { pathComponents = Route(route: route) }
}

/// `GET /{route}`, decoded as a `String`.
private struct TextEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = String
    static let definition: Definition<TextEndpoint> = Definition(path: "\(path: \.route)")
    let pathComponents: Route
    init(_ route: String) { pathComponents = Route(route: route) }
}

/// `GET /{route}`, its error body decoded as a `String`.
private struct TextErrorEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    typealias ErrorResponse = String
    static let definition: Definition<TextErrorEndpoint> = Definition(path: "\(path: \.route)")
    let pathComponents: Route
    init(_ route: String) { pathComponents = Route(route: route) }
}
