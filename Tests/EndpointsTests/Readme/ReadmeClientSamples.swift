import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's samples for typed responses, accepted statuses, timeouts and EndpointClient, as
// written there, run against a loopback server that stands in for api.example.com.

enum ReadmeClientSample {
    struct ApiServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
    }

    struct MyEndpoint: Endpoint {
        typealias Server = ApiServer
        static let definition: Definition<MyEndpoint> = Definition(method: .get, path: "path/to/resource")
        struct Response: Decodable { let resourceName: String }
    }

    struct StatusEndpoint: Endpoint {
        typealias Server = ApiServer
        typealias Response = Data
        static let definition: Definition<StatusEndpoint> = Definition(method: .get, path: "status")
    }

    struct AvatarEndpoint: Endpoint {
        typealias Server = ApiServer
        typealias Response = Data

        static let definition: Definition<AvatarEndpoint> = Definition(
            method: .get,
            path: "me/avatar",
            timeout: 30,
            acceptableStatusCodes: .successful + [304]
        )
    }

    /// Returns whether the cached image was kept, and the ETag.
    static func avatar() async throws -> (cached: Bool, etag: String?) {
        var cached = false
        let avatar = try await URLSession.shared.typedResponse(with: AvatarEndpoint())
        if avatar.httpResponse.statusCode == 304 {
            // keep the cached image
            cached = true
        }
        let etag = avatar.httpResponse.value(forHTTPHeaderField: "ETag")
        return (cached, etag)
    }

    static func client(print: @escaping @Sendable (Any) -> Void) async throws -> String {
        let client = EndpointClient(
            transport: URLSessionTransport(session: .shared, maximumRequestsPerHost: 8),
            middleware: [LoggingMiddleware(level: .basic)]
        )
        let profile = try await client.response(with: MyEndpoint())
        let avatarTask = try client.endpointTask(with: AvatarEndpoint()) { result in print(result) }
        avatarTask.resume()
        return profile.resourceName
    }
}

@Suite struct ReadmeClientSampleTests {
    @Test func aDeclared304IsKeptWithItsETag() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/me/avatar") { _ in TestServer.Response(status: 304, headers: [("ETag", "\"v1\"")]) }
        let (cached, etag) = try await withLoopback(to: server) { try await ReadmeClientSample.avatar() }
        #expect(cached)
        #expect(etag == "\"v1\"")
        #expect(server.requests.first?.rawPath == "/me/avatar")
    }

    @Test func aClientSendsBothWays() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/path/to/resource") { _ in .json(raw: #"{"resourceName":"from the client"}"#) }
        server.route("/me/avatar") { _ in .text("avatar") }
        let printed = AsyncStream<String>.makeStream()
        let name = try await withLoopback(to: server) {
            try await ReadmeClientSample.client { printed.continuation.yield("\($0)") }
        }
        #expect(name == "from the client")
        for await line in printed.stream {
            #expect(line.contains("success"))
            break
        }
    }
}
