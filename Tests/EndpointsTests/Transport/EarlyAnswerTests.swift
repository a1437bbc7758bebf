import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `POST /small.json` with a body, which nginx refuses past its `client_max_body_size` (1 MiB).
private struct OversizedUpload: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    typealias Body = Data
    static let definition: Definition<OversizedUpload> = Definition(method: .post, path: "small.json")
    let body: Data
}

/// A server that answers an upload before reading it, as nginx does with 413 for a body over its
/// limit (then reading and dropping the rest for a while, its "lingering close"): the client
/// gets the answer, with its status, not a connection reset while it was still sending. libcurl
/// stops sending once such an answer arrives. Run with `scripts/nginx.sh run swift test`;
/// `scripts/test.sh` does.
@Suite(.enabled(if: Nginx.isRunning, Nginx.skipReason))
struct EarlyAnswerTests {
    private static let size = 8 << 20

    /// The body from memory and from a file, over HTTP/1.1, through every transport.
    @Test(arguments: [false, true], TestTransport.all)
    func anUploadRefusedAsTooLargeIsAnswered413(fromFile: Bool, via transport: TestTransport) async throws {
        let client = transport.client()
        let result = try await Loopback.$baseURL.withValue(Nginx.Server.http.url) {
            try await Self.upload(with: client, fromFile: fromFile)
        }
        #expect(result.httpResponse?.statusCode == 413, "got \(result)")
    }

    #if canImport(FoundationNetworking)
        /// The same over HTTP/2 and TLS, where the answer ends the stream, not the connection.
        @Test(arguments: [false, true])
        func anUploadRefusedAsTooLargeIsAnswered413OverHTTP2(fromFile: Bool) async throws {
            let trust = try TLSTrust(certificateAuthorities: [Nginx.certificateAuthority])
            let client = EndpointClient(transport: try CurlTransport(tls: trust))
            let result = try await Loopback.$baseURL.withValue(Nginx.Server.https.url) {
                try await Self.upload(with: client, fromFile: fromFile)
            }
            #expect(result.httpResponse?.statusCode == 413, "got \(result)")
        }
    #endif

    /// The error of an upload that must fail, from memory or from a temporary file.
    private static func upload(with client: EndpointClient, fromFile: Bool) async throws -> OversizedUpload.TaskError {
        let body = Data(count: size)
        do throws(OversizedUpload.TaskError) {
            if fromFile {
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("early-\(UUID().uuidString)")
                try? body.write(to: file)
                defer { try? FileManager.default.removeItem(at: file) }
                _ = try await client.upload(OversizedUpload(body: Data()), fromFile: file)
            } else {
                _ = try await client.response(with: OversizedUpload(body: body))
            }
        } catch {
            return error
        }
        throw Unexpected()
    }

    private struct Unexpected: Error {}
}
