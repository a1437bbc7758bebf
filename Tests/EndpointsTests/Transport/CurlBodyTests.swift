import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// How the libcurl transport hands a streamed body to its reader.
    @Suite struct CurlBodyTests {
        /// libcurl calls the write callback with at most 16 KB, however much one `recv` read. Handed
        /// over one by one, each piece woke the reader (a 1 GB download ran at a tenth of curl's
        /// speed); the transport gathers the pieces of a turn of its loop into one chunk.
        @Test func aFastBodyReachesItsReaderInChunksLargerThanLibcurlsPieces() async throws {
            let server = try TestServer()
            defer { server.stop() }
            let size = 768 << 10
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            // One write of the whole response: the body arrives as fast as loopback carries it.
            server.route("/body") { _ in TestServer.Response(status: 200, headers: [], body: bytes) }
            let (body, _) = try await TestTransport.curl.transport().stream(
                URLRequest(url: server.url("/body")), context: RequestContext(endpointName: "Body"))
            var received = Data()
            var chunks = 0
            for try await chunk in body {
                received.append(chunk)
                chunks += 1
            }
            #expect(received == bytes)
            // One chunk per 16 KB piece would be 48.
            #expect(chunks < size / (16 << 10), "\(chunks) chunks")
        }
    }
#endif
