import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// `GET /x`, returned raw.
    private struct CodedEndpoint: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Data
        static let definition: Definition<CodedEndpoint> = Definition(path: "x")
    }

    /// A compressed body cut short inside its coding's stream: a gzip member without its end or
    /// trailer, a deflate, brotli or zstd stream without its end. Its framing may hold all the
    /// same (a server or proxy that cut the compressed bytes and counted what it sent), and a body
    /// read to the close has no framing to hold: only the coding's own end tells. ``CurlTransport``
    /// refuses such a body with `URLError.cannotDecodeContentData`, as Go's and OkHttp's clients
    /// do, instead of handing over a body silently cut short. libcurl checks no coding's end, so
    /// Linux's URLSession hands over what it decoded: pinned, to be turned around.
    @Suite struct TruncatedCodingTests {
        enum Framing: String, CaseIterable, CustomTestStringConvertible {
            case contentLength, chunked, close
            var testDescription: String { rawValue }

            /// The answer, `body` framed this way, under `Content-Encoding: encoding`.
            func reply(_ body: [UInt8], encoding: String) -> [UInt8] {
                let head = "HTTP/1.1 200 OK\r\nContent-Encoding: \(encoding)\r\n"
                switch self {
                case .contentLength:
                    return Array((head + "Content-Length: \(body.count)\r\n\r\n").utf8) + body
                case .chunked:
                    let chunks = stride(from: 0, to: body.count, by: 1000).flatMap { start in
                        let chunk = body[start..<min(start + 1000, body.count)]
                        return Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)
                    }
                    return Array((head + "Transfer-Encoding: chunked\r\n\r\n").utf8) + chunks + Array("0\r\n\r\n".utf8)
                case .close:
                    return Array((head + "Connection: close\r\n\r\n").utf8) + body
                }
            }
        }

        static let plain = Array((0..<3_000).map { #"{"id":\#($0)},"# }.joined().utf8)

        /// `plain` in `encoding` (a list applied in its order), its last `cut` bytes dropped.
        static func encoded(_ encoding: String, cut: Int) throws -> [UInt8] {
            var body = plain
            for coding in encoding.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                body =
                    switch coding {
                    case "deflate": CompressedBodies.zlib(body)
                    case "br": try Compressors.brotli(body)
                    case "zstd": try Compressors.zstd(body)
                    default: CompressedBodies.gzip(body)
                    }
            }
            return Array(body.dropLast(cut))
        }

        /// Cut in its last bytes (a gzip or zlib trailer, a zstd or brotli stream's end) and in its
        /// middle.
        @Test(arguments: ["gzip", "deflate", "br", "zstd", "gzip, br"], Framing.allCases)
        func aBodyCutInsideItsCodingIsRefused(encoding: String, framing: Framing) async throws {
            let whole = try Self.encoded(encoding, cut: 0)
            for cut in [1, 4, whole.count / 2] {
                for transport in TestTransport.all {
                    let server = try RawServer(
                        bytes: framing.reply(try Self.encoded(encoding, cut: cut), encoding: encoding))
                    defer { server.stop() }
                    let result = await send(CodedEndpoint(), at: server.url, via: transport)
                    if transport == .urlSession {
                        let data = try result.get()
                        #expect(Data(Self.plain).starts(with: data), "cut \(cut)")
                        continue
                    }
                    let error = try #require(result.failure(), "cut \(cut)")
                    #expect(error.urlErrorCode == .cannotDecodeContentData, "cut \(cut): \(error)")
                    #expect(String(describing: error).contains("cut short"), "cut \(cut): \(error)")
                }
            }
        }

        /// Whole, the same answers arrive whole through every transport; with no body at all (a
        /// 204, a `Content-Length` of 0) a coding's name is no reason to fail.
        @Test(arguments: ["gzip", "deflate", "br", "zstd", "gzip, br"], Framing.allCases)
        func theWholeBodyAndNoBodyArrive(encoding: String, framing: Framing) async throws {
            for transport in TestTransport.all {
                let whole = try RawServer(bytes: framing.reply(try Self.encoded(encoding, cut: 0), encoding: encoding))
                defer { whole.stop() }
                #expect(try await send(CodedEndpoint(), at: whole.url, via: transport).get() == Data(Self.plain))
                let empty = try RawServer(bytes: framing.reply([], encoding: encoding))
                defer { empty.stop() }
                #expect(try await send(CodedEndpoint(), at: empty.url, via: transport).get() == Data())
            }
            let noContent = try RawServer(reply: "HTTP/1.1 204 No Content\r\nContent-Encoding: \(encoding)\r\n\r\n")
            defer { noContent.stop() }
            for transport in TestTransport.all {
                #expect(try await send(CodedEndpoint(), at: noContent.url, via: transport).get() == Data())
            }
        }

        /// Streamed, the decoded bytes arrive and then the stream ends with the error; a download
        /// of such a body leaves the file it would have replaced as it was.
        @Test func aStreamOrDownloadCutInsideItsCodingFails() async throws {
            let body = try Self.encoded("gzip", cut: 4)
            let server = try RawServer(bytes: Framing.close.reply(body, encoding: "gzip"))
            defer { server.stop() }
            let client = TestTransport.curl.client()
            var received = Data()
            do {
                let stream = try await Loopback.$baseURL.withValue(server.url) {
                    try await client.bytes(for: CodedEndpoint())
                }
                for try await chunk in stream { received.append(chunk) }
                Issue.record("the stream ended without an error")
            } catch {
                #expect((error as? CodedEndpoint.TaskError)?.urlErrorCode == .cannotDecodeContentData, "got \(error)")
            }
            #expect(Data(Self.plain).starts(with: received))

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("endpoints-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("body.json")
            try Data("old".utf8).write(to: file)
            await #expect(throws: (any Error).self) {
                try await Loopback.$baseURL.withValue(server.url) {
                    try await client.download(CodedEndpoint(), to: file)
                }
            }
            #expect(try Data(contentsOf: file) == Data("old".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["body.json"])
        }
    }
#endif
