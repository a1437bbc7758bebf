import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Whether a server can listen on `::1` here.
private enum IPv6Loopback {
    static let isAvailable: Bool = {
        guard let server = try? TestServer(host: "::1") else { return false }
        server.stop()
        return true
    }()
}

/// `GET /hop`, which the server redirects to `/end`.
private struct HopEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    static let definition: Definition<HopEndpoint> = Definition(path: "hop")
}

/// A server whose address is an IPv6 literal (`http://[::1]:port`), and a redirect on it, through
/// every transport. Skipped where the machine has no IPv6 loopback.
@Suite(.enabled(if: IPv6Loopback.isAvailable, "this machine has no IPv6 loopback (::1)"))
struct LiteralAddressTests {
    /// `CurlTransport` (and URLSession on Apple platforms) send it. Linux's URLSession (6.3) fails
    /// every request to an IPv6 literal with `URLError.badURL` before sending it: corelibs compares
    /// the host libcurl parsed (`::1`) with `URL.host`, which keeps the brackets on Linux
    /// (swiftlang/swift-corelibs-foundation#5496, fixed by #5498 after 6.3). This pins both, to be
    /// turned around once corelibs has the fix.
    @Test(arguments: TestTransport.all)
    func anIPv6LiteralHostIsSentAndItsRedirectFollowed(via transport: TestTransport) async throws {
        let server = try TestServer(host: "::1")
        defer { server.stop() }
        server.route("/hop") { _ in TestServer.Response(status: 302, headers: [("Location", "/end")], body: Data()) }
        server.route("/end") { _ in .text("over IPv6") }
        let result = await send(HopEndpoint(), at: server.baseURL, via: transport)
        if transport.pinsLinuxURLSessionFailure(result, code: .badURL) { return }
        #expect(try result.get() == Data("over IPv6".utf8))
    }
}
