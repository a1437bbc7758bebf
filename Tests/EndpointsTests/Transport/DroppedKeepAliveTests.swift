import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `POST /upload`, its answer as received.
private struct RawPostEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    typealias ErrorResponse = Data

    static let definition: Definition<RawPostEndpoint> = Definition(method: .post, path: "upload")
}

/// Sets the request's body as a stream, which cannot be read twice.
private struct BodyStreamMiddleware: Middleware {
    let body: Data

    func intercept(
        _ request: URLRequest, context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        var request = request
        request.httpBodyStream = InputStream(data: body)
        request.setValue("\(body.count)", forHTTPHeaderField: "Content-Length")
        return try await next(request)
    }
}

#if canImport(FoundationNetworking)
    /// A kept-alive connection that the server closes as the next request arrives on it (a server
    /// restarting, or timing the idle connection out at that moment): libcurl sends the request again
    /// on a new connection, reading its body from the start.
    @Suite struct DroppedKeepAliveTests {
        private static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

        /// An upload, from a file or a sequence (spooled to a file), is read again and arrives.
        @Test func anUploadIsSentAgainOnANewConnection() async throws {
            let server = try RawServer(keepAliveReplies: [Self.ok])
            defer { server.stop() }
            let client = TestTransport.curl.client()
            let chunks = AsyncStream<Data> { continuation in
                continuation.yield(Data("hello".utf8))
                continuation.finish()
            }
            let (first, second) = try await Loopback.$baseURL.withValue(server.url) {
                (
                    try await client.response(with: RawRouteEndpoint("first")),
                    try await client.upload(RawPostEndpoint(), from: chunks)
                )
            }
            #expect(first == Data("ok".utf8) && second == Data("ok".utf8))
            // The first connection read the POST's head and closed; the second answered it.
            #expect(server.heads.value.filter { $0.hasPrefix("POST /upload ") }.count == 2)
        }

        /// A body stream (`httpBodyStream`, say from a middleware) cannot be read twice: the request
        /// fails with `.requestBodyStreamExhausted`, as on Apple platforms, not `.unknown`.
        @Test func aBodyStreamThatCannotBeReadAgainSaysSo() async throws {
            let server = try RawServer(keepAliveReplies: [Self.ok])
            defer { server.stop() }
            let client = TestTransport.curl.client()
            let result = await Loopback.$baseURL.withValue(server.url) {
                () async -> Result<Data, RawPostEndpoint.TaskError> in
                do throws(RawPostEndpoint.TaskError) {
                    _ = try await client.response(with: RawRouteEndpoint("first"))
                    return .success(
                        try await client.response(
                            with: RawPostEndpoint(), middleware: [BodyStreamMiddleware(body: Data("stream".utf8))]))
                } catch {
                    return .failure(error)
                }
            }
            #expect(result.failure()?.urlErrorCode == .requestBodyStreamExhausted)
        }

        /// Linux's URLSession sends the upload's head on the new connection and never its body, so
        /// the request waits for its timeout: a corelibs defect (raw `uploadTask(with:fromFile:)`
        /// does the same), pinned here to be turned around once corelibs is fixed.
        @Test func linuxURLSessionWaitsForTheTimeout() async throws {
            let server = try RawServer(keepAliveReplies: [Self.ok])
            defer { server.stop() }
            let client = TestTransport.urlSession.client(
                session: URLSession(configuration: .ephemeral), middleware: [TimeoutMiddleware(seconds: 2)])
            let result = await Loopback.$baseURL.withValue(server.url) {
                () async -> Result<Data, RawPostEndpoint.TaskError> in
                do throws(RawPostEndpoint.TaskError) {
                    _ = try await client.response(with: RawRouteEndpoint("first"))
                    let chunks = AsyncStream<Data> { continuation in
                        continuation.yield(Data("hello".utf8))
                        continuation.finish()
                    }
                    return .success(try await client.upload(RawPostEndpoint(), from: chunks))
                } catch {
                    return .failure(error)
                }
            }
            _ = TestTransport.urlSession.pinsLinuxURLSessionFailure(result, code: .timedOut)
        }
    }
#endif
