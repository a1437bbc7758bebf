import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// `CurlTransport` decoding what a real server compresses: nginx's gzip (level 6, not the
    /// stored blocks the loopback tests make by hand) of a 6 MB JSON file, over TLS and HTTP/2,
    /// whose frames cut the body where they will. Run with `scripts/nginx.sh run swift test`;
    /// `scripts/test.sh` does.
    @Suite(.enabled(if: Nginx.isRunning, Nginx.skipReason))
    struct NginxCompressionTests {
        private func client() throws -> EndpointClient {
            EndpointClient(
                transport: try CurlTransport(tls: TLSTrust(certificateAuthorities: [Nginx.certificateAuthority])))
        }

        /// The file as nginx stores it, from the path where nothing is compressed.
        private func plain(_ client: EndpointClient) async throws -> Data {
            let result = try await client.send(FileEndpoint("records.json"), to: Nginx.Server.https.url).get()
            #expect(result.httpResponse.value(forHTTPHeaderField: "Content-Encoding") == nil)
            return result.value
        }

        @Test func aGzipBodyFromNginxOverHTTP2ArrivesDecoded() async throws {
            let client = try client()
            let plain = try await plain(client)
            let result = try await client.send(FileEndpoint("gz/records.json"), to: Nginx.Server.https.url).get()
            #expect(result.httpResponse.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
            #expect(result.metrics.attempts.first?.connection?.networkProtocol == "h2")
            // Smaller on the wire than the file, and no bomb.
            let received = try #require(result.metrics.attempts.first?.connection?.bytesReceived)
            #expect(received > 0 && received < Int64(plain.count / 4), "\(received) bytes on the wire")
            #expect(result.value == plain)
        }

        /// Read slowly: the transfer pauses while the reader is behind, HTTP/2's flow control
        /// holds nginx back, and decoding goes on where it stopped.
        @Test func aGzipStreamFromNginxReadSlowlyArrivesWhole() async throws {
            let client = try client()
            let plain = try await plain(client)
            let stream = try await Loopback.$baseURL.withValue(Nginx.Server.https.url) {
                try await client.bytes(for: FileEndpoint("gz/records.json"))
            }
            var received = Data()
            for try await chunk in stream {
                received.append(chunk)
                if received.count % (1 << 20) < chunk.count { try await Task.sleep(nanoseconds: 20_000_000) }
            }
            #expect(received == plain)
        }
    }
#endif
