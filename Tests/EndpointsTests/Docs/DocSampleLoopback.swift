import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Lets the DocC and README samples run as written: they send to `https://api.example.com` with
// `URLSession.shared`, and this transport, installed for one task tree, sends the same path and
// query to a loopback `TestServer` instead. Middleware still sees the sample's own URL.

/// Sends each request to `server`, keeping its path, query, headers and body.
struct LoopbackTransport: HTTPTransport {
    let server: TestServer
    let session = URLSession(configuration: .ephemeral)

    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        var loopback = request
        if let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.scheme = "http"
            components.host = "127.0.0.1"
            components.port = Int(server.port)
            loopback.url = components.url
        }
        return try await URLSessionTransport(session: session).send(loopback, context: context)
    }
}

/// Runs `operation` with every request of its task tree sent to `server`.
func withLoopback<R: Sendable>(
    to server: TestServer,
    _ operation: () async throws -> R
) async rethrows -> R {
    try await PipelineOverrides.$current.withValue(PipelineOverrides(transport: LoopbackTransport(server: server))) {
        try await operation()
    }
}

/// The parts of `/echo`'s answer the sample tests compare.
struct DocSampleEcho: Decodable, Sendable {
    let method: String
    let path: String
    let headers: [String: String]
}
