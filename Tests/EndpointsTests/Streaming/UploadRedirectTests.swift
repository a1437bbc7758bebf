import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `POST /echo` whose body is a file or a sequence; the echo comes back.
private struct PostUploadEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError

    static let definition: Definition<PostUploadEndpoint> = Definition(method: .post, path: "echo")
}

/// An upload (from a file, or from a sequence spooled to one) that is redirected is sent on as its
/// method says (RFC 9110 §15.4): a 307 or 308 keeps the method and the whole body, as a 301 or
/// 302 of a `PUT` does; a 303, and a 301 or 302 of a `POST`, turn it into a `GET` with no body.
/// Through every transport. Before, Linux's URLSession waited for a body stream corelibs never
/// asked for until the request timed out, and the libcurl transport sent the file with the `GET`.
@Suite struct UploadRedirectTests {
    static let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) })

    enum Source: String, CaseIterable, CustomTestStringConvertible {
        case file, sequence
        var testDescription: String { rawValue }
    }

    private func upload<T: Endpoint>(
        _ endpoint: T, from source: Source, via transport: TestTransport, to server: TestServer
    ) async throws -> T.Response {
        let client = transport.client()
        return try await Loopback.$baseURL.withValue(server.baseURL) {
            switch source {
            case .file:
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID())")
                try Self.bytes.write(to: file)
                defer { try? FileManager.default.removeItem(at: file) }
                return try await client.upload(endpoint, fromFile: file)
            case .sequence:
                let chunks = AsyncStream<Data> { continuation in
                    for start in stride(from: 0, to: Self.bytes.count, by: 100_000) {
                        continuation.yield(Self.bytes[start..<min(start + 100_000, Self.bytes.count)])
                    }
                    continuation.finish()
                }
                return try await client.upload(endpoint, from: chunks)
            }
        }
    }

    @Test(arguments: [301, 302, 303, 307, 308], Source.allCases)
    func aRedirectedUploadGoesOnAsItsMethodSays(status: Int, source: Source) async throws {
        for transport in TestTransport.all {
            for post in [false, true] {
                let server = try TestServer()
                defer { server.stop() }
                server.route("/echo") { _ in
                    TestServer.Response(status: status, headers: [("Location", "/echo/next")], body: Data())
                }
                let echo =
                    post
                    ? try await upload(PostUploadEndpoint(), from: source, via: transport, to: server)
                    : try await upload(UploadEndpoint(), from: source, via: transport, to: server)
                let becomesGet = status == 303 || (post && status <= 302)
                let next = try #require(server.requests.last, "\(transport)")
                #expect(echo.path == "/echo/next", "\(transport)")
                #expect(next.method == (becomesGet ? "GET" : post ? "POST" : "PUT"), "\(transport), POST \(post)")
                #expect(next.body == (becomesGet ? Data() : Self.bytes), "\(transport), POST \(post)")
                #expect(server.requests.first?.body == Self.bytes, "\(transport)")
            }
        }
    }
}
