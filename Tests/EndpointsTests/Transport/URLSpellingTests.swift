import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /spelled`, returned raw.
private struct SpelledEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    static let definition: Definition<SpelledEndpoint> = Definition(path: "spelled")
}

/// URLs spelled in ways RFC 3986 allows, through every transport.
@Suite struct URLSpellingTests {
    /// A scheme in capitals (`HTTP://`) is the same scheme (RFC 3986 §3.1). Apple's URLSession and
    /// libcurl send it; Linux's URLSession (6.3) refuses it with `URLError.unsupportedURL`, so the
    /// library lower-cases it there.
    @Test(arguments: ["HTTP", "Http"], TestTransport.all)
    func aSchemeInCapitalsIsSent(scheme: String, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/spelled") { _ in .text("sent") }
        let base = try #require(URL(string: "\(scheme)://127.0.0.1:\(server.port)"))
        let data = try await send(SpelledEndpoint(), at: base, via: transport).get()
        #expect(data == Data("sent".utf8))
    }
}
