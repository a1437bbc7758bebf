import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 23: a body cut off part-way is `URLError.networkConnectionLost` on every path, platform
/// and transport (corelibs reports `URLError.unknown`, -1), with URLSession's error kept underneath,
/// and ``RetryMiddleware`` retries it for idempotent requests. Over real loopback sockets, through
/// each transport.
@Suite struct PartialTransferTests {
    /// The routes that drop the connection part-way: `/close-mid-body` (built in) declares
    /// `Content-Length: 1000` and sends 10 bytes; `/drop` sends one chunk of a chunked body.
    static let cutOffRoutes = ["close-mid-body", "drop"]

    private func server() throws -> TestServer {
        let server = try TestServer()
        server.route("/drop") { _ in .streamed([Data("{\"n\":1}\n".utf8)], then: .drop) }
        return server
    }

    private func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("endpoints-partial-\(name)-\(UUID().uuidString)")
    }

    @Test(arguments: cutOffRoutes, TestTransport.all)
    func aBufferedBodyCutOffIsALostConnection(route: String, via transport: TestTransport) async throws {
        let server = try server()
        defer { server.stop() }
        let error = try #require(await send(FileEndpoint(route), to: server, via: transport).failure())
        expectLostConnection(error, via: transport)
    }

    @Test(arguments: TestTransport.all)
    func anEventStreamCutOffIsALostConnection(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/events") { _ in
            .streamed([Data("data: {\"n\":1}\n\n".utf8)], contentType: "text/event-stream", then: .drop)
        }
        try await Loopback.$baseURL.withValue(server.baseURL) {
            var events = try await transport.client().bytes(for: TickStream("events")).events.makeAsyncIterator()
            #expect(try await events.next()?.data == #"{"n":1}"#)
            let error = await #expect(throws: TickStream.TaskError.self) { _ = try await events.next() }
            expectLostConnection(error, via: transport)
        }
    }

    @Test(arguments: TestTransport.all)
    func aJSONLinesStreamCutOffIsALostConnection(via transport: TestTransport) async throws {
        let server = try server()
        defer { server.stop() }
        try await Loopback.$baseURL.withValue(server.baseURL) {
            var lines = try await transport.client().bytes(for: TickStream("drop")).lines.makeAsyncIterator()
            #expect(try await lines.next()?.n == 1)
            let error = await #expect(throws: TickStream.TaskError.self) { _ = try await lines.next() }
            expectLostConnection(error, via: transport)
        }
    }

    /// With and without a progress closure: on Linux's URLSession a delegate's download task and a
    /// completion-handler one.
    @Test(arguments: cutOffRoutes, TestTransport.all)
    func aDownloadCutOffIsALostConnection(route: String, via transport: TestTransport) async throws {
        let server = try server()
        defer { server.stop() }
        for reportsProgress in [false, true] {
            let file = temporaryFile("download")
            defer { try? FileManager.default.removeItem(at: file) }
            let reports = LockedBox(0)
            let progress: (@Sendable (TransferProgress) -> Void)? =
                reportsProgress ? { @Sendable _ in reports.mutate { $0 += 1 } } : nil
            let error = await #expect(throws: FileEndpoint.TaskError.self, "progress: \(reportsProgress)") {
                try await Loopback.$baseURL.withValue(server.baseURL) {
                    try await transport.client().download(FileEndpoint(route), to: file, progress: progress)
                }
            }
            expectLostConnection(error, via: transport)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test(arguments: TestTransport.all)
    func anUploadsResponseCutOffIsALostConnection(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        // `UploadEndpoint` is `PUT /echo`; this route takes precedence over the built-in one.
        server.route("/echo") { _ in
            .streamed([Data("{\"method\":".utf8)], contentType: "application/json", then: .drop)
        }
        let file = temporaryFile("upload")
        try Data(repeating: 7, count: 4096).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let error = await #expect(throws: UploadEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().upload(UploadEndpoint(), fromFile: file)
            }
        }
        expectLostConnection(error, via: transport)
        #expect(server.requests.last?.body.count == 4096)
    }

    // MARK: Retries

    @Test(arguments: TestTransport.all)
    func anIdempotentGETIsRetriedAfterOneCutOff(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = MiddlewareRetryTests.script(
            server, "/flaky", [.streamed([Data("{\"ok\":".utf8)], then: .drop), .json(raw: #"{"ok":true}"#)])
        let clock = TestClock()
        let data = try await transport.client(session: makeMiddlewareTestSession()).response(
            with: MiddlewareGet("flaky"), environment: server.baseURL, middleware: [RetryMiddleware(clock: clock)])
        #expect(String(decoding: data, as: UTF8.self) == #"{"ok":true}"#)
        #expect(calls.withLock { $0 } == 2)
        #expect(server.requestCount == 2)
        #expect(clock.slept.count == 1)
    }

    @Test(arguments: TestTransport.all)
    func aPOSTCutOffIsNotRetried(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = MiddlewareRetryTests.script(server, "/drop", [.streamed([Data("{\"ok\":".utf8)], then: .drop)])
        let clock = TestClock()
        let error = await #expect(throws: MiddlewarePost.TaskError.self) {
            try await transport.client(session: makeMiddlewareTestSession()).response(
                with: MiddlewarePost("drop"), environment: server.baseURL, middleware: [RetryMiddleware(clock: clock)])
        }
        expectLostConnection(error, via: transport)
        #expect(calls.withLock { $0 } == 1)
        #expect(server.requestCount == 1)
        #expect(clock.slept.isEmpty)
    }

    // MARK: The mapping itself

    /// A short body that reaches the framing check (URLSession reported no error) is a lost
    /// connection on both platforms, not a malformed response; ambiguous framing still is.
    @Test func aShortBodyIsALostConnectionAndConflictingLengthsAreMalformed() throws {
        let url = URL(string: "http://127.0.0.1:9/x")!
        func response(_ fields: [String: String]) throws -> HTTPURLResponse {
            try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields))
        }
        let short = try #require(
            ResponseFraming.violation(of: response(["Content-Length": "10"]), bodyLength: 4, requestMethod: "GET"))
        #expect(short.code == .networkConnectionLost)
        #expect(short.failingURL == url)
        #expect(short.localizedDescription.contains("4 of the 10 bytes"))
        let conflicting = ResponseFraming.violation(
            of: try response(["Content-Length": "7, 10"]), bodyLength: 10, requestMethod: "GET")
        #expect(conflicting?.code == .badServerResponse)
        let invalid = ResponseFraming.violation(
            of: try response(["Content-Length": "1e3"]), bodyLength: 4, requestMethod: "GET")
        #expect(invalid?.code == .badServerResponse)
        // A decoded body is exempt (its length counts encoded bytes); an empty or padded
        // `identity` names no coding, so the body is held to its length.
        let decoded = ResponseFraming.violation(
            of: try response(["Content-Length": "10", "Content-Encoding": "gzip"]), bodyLength: 40, requestMethod: "GET"
        )
        #expect(decoded == nil)
        for coding in ["", " ", " identity "] {
            let unencoded = ResponseFraming.violation(
                of: try response(["Content-Length": "10", "Content-Encoding": coding]), bodyLength: 4,
                requestMethod: "GET")
            #expect(unencoded?.code == .networkConnectionLost, "Content-Encoding: \"\(coding)\"")
        }
    }

    #if canImport(FoundationNetworking)
        /// What corelibs delivers for curl's `CURLE_PARTIAL_FILE`, as seen in a run (curl 7.88):
        /// a `URLError` -1 whose description is curl's text, over an `NSError` with the same.
        static func corelibsError(_ text: String) -> URLError {
            let curl = NSError(domain: NSURLErrorDomain, code: -1, userInfo: [NSLocalizedDescriptionKey: text])
            return URLError(
                .unknown,
                userInfo: [
                    NSLocalizedDescriptionKey: text, NSUnderlyingErrorKey: curl,
                    NSURLErrorFailingURLErrorKey: URL(string: "http://127.0.0.1:9/x")!,
                ])
        }

        @Test(arguments: [
            "transfer closed with 990 bytes remaining to read",
            "transfer closed with outstanding read data remaining",
            "end of response with 12 bytes missing",
            "Transferred a partial file",
        ])
        func curlsPartialFileTextsAreALostConnection(text: String) throws {
            let original = Self.corelibsError(text)
            let mapped = try #require(URLError.normalizingCorelibsFailure(original) as? URLError)
            #expect(mapped.code == .networkConnectionLost)
            #expect(mapped.failingURL == original.failingURL)
            #expect(mapped.localizedDescription.contains(text))
            let underlying = try #require(mapped.userInfo[NSUnderlyingErrorKey] as? URLError)
            #expect(underlying == original)
            // An NSError of the same, as corelibs' completion delivers to a delegate, too.
            let nsError = NSError(domain: NSURLErrorDomain, code: -1, userInfo: [NSLocalizedDescriptionKey: text])
            #expect((URLError.normalizingCorelibsFailure(nsError) as? URLError)?.code == .networkConnectionLost)
        }

        /// Only curl's texts it knows: other `-1`s stay what they are (the body's writer failing,
        /// a connection refused with another errno, a hostname with "ssl" in it), and so do the
        /// same words under another code or domain.
        @Test func otherFailuresAreLeftAlone() {
            let others: [any Error] = [
                Self.corelibsError("Failed reading the chunked-encoded stream"),
                Self.corelibsError("Failed to connect to ssl.example.com port 443 after 3 ms: No route to host"),
                URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: #"Protocol "ftp" not supported"#]),
                Self.corelibsError("transfer closed with many bytes remaining to read"),
                URLError(
                    .timedOut, userInfo: [NSLocalizedDescriptionKey: "transfer closed with 1 bytes remaining to read"]),
                NSError(
                    domain: "libcurl", code: -1,
                    userInfo: [NSLocalizedDescriptionKey: "transfer closed with outstanding read data remaining"]),
                CancellationError(),
            ]
            for error in others {
                let normalized = URLError.normalizingCorelibsFailure(error) as NSError
                #expect(normalized.code == (error as NSError).code, "\(error)")
                #expect(normalized.domain == (error as NSError).domain, "\(error)")
            }
        }
    #endif
}

/// Records an issue unless `error` is `.urlLoadError(.networkConnectionLost)` with a failing URL
/// and, on Linux, libcurl's words for it: through URLSession corelibs' own error (-1, curl's text)
/// kept under `NSUnderlyingErrorKey`; through libcurl's transport in the description.
private func expectLostConnection<E>(
    _ error: EndpointTaskError<E>?, via transport: TestTransport, sourceLocation: SourceLocation = #_sourceLocation
) {
    guard case .urlLoadError(let urlError)? = error else {
        Issue.record(
            "expected .urlLoadError(.networkConnectionLost), got \(String(describing: error))",
            sourceLocation: sourceLocation)
        return
    }
    #expect(urlError.code == .networkConnectionLost, "\(urlError)", sourceLocation: sourceLocation)
    #expect(urlError.failingURL != nil, sourceLocation: sourceLocation)
    #if canImport(FoundationNetworking)
        let underlying = (urlError.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        #expect(urlError.localizedDescription.contains("transfer closed with "), sourceLocation: sourceLocation)
        switch transport {
        case .urlSession:
            #expect(underlying?.code == URLError.Code.unknown.rawValue, sourceLocation: sourceLocation)
            #expect(
                underlying?.localizedDescription.hasPrefix("transfer closed with ") == true,
                sourceLocation: sourceLocation)
        case .curl:
            // libcurl's code is mapped where it is read: there is no other error to keep.
            #expect(underlying == nil, sourceLocation: sourceLocation)
        }
    #endif
}
