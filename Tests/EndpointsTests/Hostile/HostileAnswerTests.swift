import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /x`, returned raw.
private struct HostileRawEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    static let definition: Definition<HostileRawEndpoint> = Definition(path: "x")
}

/// Sends ``HostileRawEndpoint`` through `transport` to a server that answers `reply` and closes.
private func fetch(_ reply: [UInt8], via transport: TestTransport) async throws -> Result<
    Data, HostileRawEndpoint.TaskError
> {
    let server = try RawServer(bytes: reply)
    defer { server.stop() }
    return await send(HostileRawEndpoint(), at: server.url, via: transport)
}

private func fetch(_ reply: String, via transport: TestTransport) async throws -> Result<
    Data, HostileRawEndpoint.TaskError
> {
    try await fetch(Array(reply.utf8), via: transport)
}

/// Answers no transport should take as they are: each is a typed error, never a crash or a hang.
/// What only the libcurl transport can check (the head's size and syntax, which Linux's URLSession
/// and libcurl alone accept) runs through it alone.
@Suite struct HostileAnswerTests {
    #if canImport(FoundationNetworking)
        @Test(arguments: [
            "HTTP/1.1 200 OK\r\nX-A: one\r\n  folded\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nX-A: bare\rcr\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nBad Name: x\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 200 OK\r\n"
                + String(repeating: "X-Padding: " + String(repeating: "a", count: 1000) + "\r\n", count: 70)
                + "Content-Length: 0\r\n\r\n",
        ])
        func aMalformedOrOversizedHeadIsRefused(reply: String) async throws {
            let error = try #require(try await fetch(reply, via: .curl).failure())
            #expect(error.urlErrorCode == .badServerResponse, "got \(error)")
        }

        /// Answers both Linux transports refuse are `URLError.badServerResponse` through each, with
        /// the words of whoever refused it: HTTP/0.9 (a body with no status line), a status line
        /// or version libcurl does not take, broken chunking, a header line without a colon or
        /// with a NUL, a negative `Content-Length`. (Linux's URLSession reports them as `-1` or
        /// `-1002`, which the library maps by curl's words.)
        @Test(
            arguments: [
                "just a body, no status line\r\n",
                "ICY 200 OK\r\nContent-Length: 5\r\n\r\nhello",
                "HTTP/1.1 20 OK\r\nContent-Length: 5\r\n\r\nhello",
                "HTTP/1.2 200 OK\r\nContent-Length: 5\r\n\r\nhello",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffffff\r\nab",
                "HTTP/1.1 200 OK\r\nNoColonHere\r\nContent-Length: 5\r\n\r\nhello",
                "HTTP/1.1 200 OK\r\nX-Nul: a\u{0}b\r\nContent-Length: 5\r\n\r\nhello",
                "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nhello",
            ], TestTransport.all)
        func anAnswerBothRefuseIsMalformedThroughEach(reply: String, via transport: TestTransport) async throws {
            let error = try #require(try await fetch(reply, via: transport).failure())
            #expect(error.urlErrorCode == .badServerResponse, "got \(error)")
        }

        /// A TLS client hello to a plain-HTTP server: a handshake failure, named.
        @Test func tlsToAPlainServerIsAHandshakeFailure() async throws {
            // The test server answers the hello, which is no HTTP request, with a 400 and closes.
            let server = try TestServer()
            defer { server.stop() }
            let url = URL(string: "https://127.0.0.1:\(server.port)")!
            let error = try #require(await send(HostileRawEndpoint(), at: url, via: .curl).failure())
            #expect(error.urlErrorCode == .secureConnectionFailed, "got \(error)")
            guard case .urlLoadError(let urlError) = error else { return }
            #expect(urlError.tlsFailure?.reason == .handshake)
        }

        // MARK: Compressed bodies

        private func compressed(
            _ body: [UInt8], encoding: String, via transport: TestTransport = .curl
        ) async throws -> Result<Data, HostileRawEndpoint.TaskError> {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/x") { _ in
                TestServer.Response(status: 200, headers: [("Content-Encoding", encoding)], body: Data(body))
            }
            return await send(HostileRawEndpoint(), to: server, via: transport)
        }

        @Test(arguments: ["gzip", "x-gzip", "deflate", "deflate-raw"])
        func gzipAndDeflateBodiesAreDecoded(encoding: String) async throws {
            let plain = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 31) }
            let body: [UInt8] =
                switch encoding {
                case "deflate": CompressedBodies.zlib(plain)
                case "deflate-raw": CompressedBodies.rawDeflate(plain)
                default: CompressedBodies.gzip(plain)
                }
            let data = try await compressed(body, encoding: encoding == "deflate-raw" ? "deflate" : encoding).get()
            #expect(data == Data(plain))
        }

        /// A gzip body may be several members one after another (RFC 1952 §2.2: what `cat a.gz b.gz`
        /// and `pigz` make): each is decoded, in order, also when a member ends with a chunk, as
        /// browsers and Node read it (libcurl, and so Linux's URLSession, fails with a write error).
        /// Zero padding after the last member is dropped, as before.
        @Test(arguments: [false, true], TestTransport.all)
        func gzipMembersFollowingEachOtherAreOneBody(chunkedAtTheBoundary: Bool, via transport: TestTransport)
            async throws
        {
            let first = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let second = Array("and the second member".utf8)
            let members = [CompressedBodies.gzip(first), CompressedBodies.gzip(second), [0, 0, 0, 0]]
            let server = try TestServer()
            defer { server.stop() }
            server.route("/x") { _ in
                var response =
                    chunkedAtTheBoundary
                    ? TestServer.Response.streamed(members.map { Data($0) }, pause: .milliseconds(20))
                    : TestServer.Response.streamed([Data(members.joined())])
                response.headers.append((name: "Content-Encoding", value: "gzip"))
                return response
            }
            let result = await send(HostileRawEndpoint(), to: server, via: transport)
            if transport.pinsLinuxURLSessionFailure(result, code: .unknown) { return }
            #expect(try result.get() == Data(first + second))
        }

        /// A raw deflate body (`Content-Encoding: deflate` with no zlib wrapper, as some servers
        /// send it) whose first byte arrives alone is decoded whole: the bytes the zlib inflater
        /// took before it refused the body are read again as raw deflate. libcurl, and so Linux's
        /// URLSession, decodes such a body sent at once but fails when its first byte comes alone
        /// (`curl --compressed` exits with 61): pinned, to be turned around.
        @Test(arguments: TestTransport.all)
        func aRawDeflateBodyWhoseFirstByteArrivesAloneIsDecoded(via transport: TestTransport) async throws {
            let plain = Array((0..<3_000).map { #"{"id":\#($0)},"# }.joined().utf8)
            let body = CompressedBodies.rawDeflate(plain)
            let server = try TestServer()
            defer { server.stop() }
            server.route("/x") { _ in
                var response = TestServer.Response.streamed(
                    [Data(body[..<1]), Data(body[1...])], pause: .milliseconds(20))
                response.headers.append((name: "Content-Encoding", value: "deflate"))
                return response
            }
            let result = await send(HostileRawEndpoint(), to: server, via: transport)
            if transport.pinsLinuxURLSessionFailure(result, code: .cannotDecodeContentData) { return }
            #expect(try result.get() == Data(plain))
        }

        /// A gzip bomb ends the request once it decodes to more than the ratio allows, and the
        /// transfer stops there (it would have decoded to 258 MB).
        @Test func aGzipBombIsRefused() async throws {
            let bomb = CompressedBodies.gzipBomb(matches: 1_000_000)
            let error = try #require(try await compressed(bomb, encoding: "gzip").failure())
            #expect(error.urlErrorCode == .cannotDecodeContentData, "got \(error)")
            #expect(String(describing: error).contains("decompression bomb"))
        }

        /// Brotli and zstd bodies as their real encoders make them are decoded, as Linux's
        /// URLSession (through libcurl) and Apple's (brotli) decode them.
        @Test(arguments: ["br", "zstd"])
        func brotliAndZstdBodiesAreDecoded(encoding: String) async throws {
            // Text that compresses as JSON does, past one 64 KiB piece of output.
            let plain = Array((0..<8_000).map { #"{"id":\#($0),"name":"item \#($0 * 7919 % 1000)"},"# }.joined().utf8)
            let body = encoding == "br" ? try Compressors.brotli(plain) : try Compressors.zstd(plain)
            #expect(body.count < plain.count / 3)
            let data = try await compressed(body, encoding: encoding).get()
            #expect(data == Data(plain))
        }

        /// A zstd body may be several frames (RFC 8878 §3.1): each is decoded, in order.
        @Test func zstdFramesFollowingEachOtherAreOneBody() async throws {
            let body = try Compressors.zstd(Array("hello, ".utf8)) + Compressors.zstd(Array("world".utf8))
            let data = try await compressed(body, encoding: "zstd").get()
            #expect(String(decoding: data, as: UTF8.self) == "hello, world")
        }

        /// A zstd frame that asks for a window over 8 MB is refused before its decoder takes the
        /// memory (RFC 9659 §3: decoders of the content coding need not go past 8 MB); one within
        /// it is decoded.
        @Test func aZstdWindowOver8MBIsRefused() async throws {
            let small = try await compressed(Compressors.zstdRLE(byte: 0x61, blocks: 1), encoding: "zstd").get()
            #expect(small == Data(repeating: 0x61, count: 128 << 10))
            let huge = Compressors.zstdRLE(byte: 0x61, blocks: 1, windowLog: 25)
            let error = try #require(try await compressed(huge, encoding: "zstd").failure())
            #expect(error.urlErrorCode == .cannotDecodeContentData, "got \(error)")
        }

        /// A brotli or zstd bomb ends the request as a gzip bomb does: a 64 MiB brotli body of
        /// zeros (a few hundred bytes sent), a 1 GiB zstd one (32 KB sent).
        @Test(arguments: ["br", "zstd"])
        func brotliAndZstdBombsAreRefused(encoding: String) async throws {
            let bomb =
                encoding == "br"
                ? try Compressors.brotli([UInt8](repeating: 0, count: 64 << 20), quality: 1)
                : Compressors.zstdRLE(byte: 0, blocks: 8_192)
            let error = try #require(try await compressed(bomb, encoding: encoding).failure())
            #expect(error.urlErrorCode == .cannotDecodeContentData, "got \(error)")
            #expect(String(describing: error).contains("decompression bomb"))
        }

        /// Codings applied one after another (RFC 9110 §8.4) are decoded in turn, the last first,
        /// as libcurl decodes them for Linux's URLSession; `identity` in the list changes nothing.
        /// Two fields name the codings as one list does (`Content-Encoding: gzip` then
        /// `Content-Encoding: br`), and empty list elements are ignored (RFC 9110 §5.6.1.2).
        @Test(
            arguments: ["gzip, br", "deflate, zstd", "br,gzip", "identity, gzip", "gzip,, br", "gzip\nbr"],
            TestTransport.all)
        func stackedCodingsAreDecodedInTurn(encoding: String, via transport: TestTransport) async throws {
            let plain = Array((0..<40_000).map { #"{"id":\#($0)},"# }.joined().utf8)
            var body = plain
            let codings = encoding.split { $0 == "," || $0 == "\n" }.map { $0.trimmingCharacters(in: .whitespaces) }
            for coding in codings {
                body =
                    switch coding {
                    case "br": try Compressors.brotli(body)
                    case "zstd": try Compressors.zstd(body)
                    case "deflate": CompressedBodies.zlib(body)
                    case "gzip": CompressedBodies.gzip(body)
                    default: body
                    }
            }
            let server = try TestServer()
            defer { server.stop() }
            let fields = encoding.split(separator: "\n").map { (name: "Content-Encoding", value: String($0)) }
            server.route("/x") { [body] _ in TestServer.Response(status: 200, headers: fields, body: Data(body)) }
            let data = try await send(HostileRawEndpoint(), to: server, via: transport).get()
            #expect(data == Data(plain))
        }

        /// A bomb inside another coding is refused as one alone is: each stage is held to the
        /// ratio against the bytes received.
        @Test func aBombInsideAnotherCodingIsRefused() async throws {
            // The outer gzip is stored blocks, no bomb itself; the inner one (160 KB) would make
            // 26 MB, 160 times its size: refused past its first MiB.
            let bomb = CompressedBodies.gzip(CompressedBodies.gzipBomb(matches: 100_000))
            let error = try #require(try await compressed(bomb, encoding: "gzip, gzip").failure())
            #expect(error.urlErrorCode == .cannotDecodeContentData, "got \(error)")
            #expect(String(describing: error).contains("decompression bomb"))
        }

        /// Codings the transport does not decode arrive as they were sent, with their
        /// `Content-Encoding`: unknown ones, alone or in a list, and more than five stacked (as
        /// libcurl allows no more than five since CVE-2023-23916).
        @Test(arguments: ["compress", "x-made-up", "gzip, compress", "gzip, gzip, gzip, gzip, gzip, gzip"])
        func otherCodingsArriveAsSent(encoding: String) async throws {
            let body = Compressors.zstdRLE(byte: 0, blocks: 64)
            let data = try await compressed(body, encoding: encoding).get()
            #expect(data == Data(body))
        }

        /// The transport offers every coding it decodes, unless the request offers its own.
        @Test func everyDecodedCodingIsOffered() async throws {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/x") { _ in TestServer.Response(status: 200, headers: [], body: Data()) }
            _ = try await send(HostileRawEndpoint(), to: server, via: .curl).get()
            #expect(server.requests.last?.header("Accept-Encoding") == "gzip, deflate, br, zstd")
        }

        /// A compressed stream read slowly: decoding stops while the reader is behind and goes on
        /// where it stopped, so every byte arrives, in order, whatever the pauses. Random bytes
        /// arrive in many chunks; text that compresses tenfold arrives in few, each decoding to
        /// more than the reader takes, so the decoder still holds output when the transfer ends.
        @Test(arguments: ["gzip", "br", "zstd", "gzip, br"], [false, true])
        func aLargeCompressedStreamReadSlowlyArrivesWhole(encoding: String, compressible: Bool) async throws {
            let plain =
                compressible
                ? Array((0..<120_000).map { #"{"id":\#($0),"name":"item \#($0 &* 7919 % 1000)"},"# }.joined().utf8)
                : Self.randomBytes(6 << 20)
            let encoded =
                switch encoding {
                case "br": try Compressors.brotli(plain, quality: 1)
                case "zstd": try Compressors.zstd(plain, level: 1)
                case "gzip, br": try Compressors.brotli(CompressedBodies.gzip(plain), quality: 1)
                default: CompressedBodies.gzip(plain)
                }
            let body = Data(encoded)
            let server = try TestServer()
            defer { server.stop() }
            server.route("/x") { _ in
                let chunks = stride(from: 0, to: body.count, by: 256 << 10).map {
                    body[$0..<min($0 + (256 << 10), body.count)]
                }
                var response = TestServer.Response.streamed(chunks)
                response.headers.append((name: "Content-Encoding", value: encoding))
                return response
            }
            let stream = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await TestTransport.curl.client().bytes(for: HostileRawEndpoint())
            }
            var received = Data()
            for try await chunk in stream {
                received.append(chunk)
                // A slow reader: the buffer fills, the transfer pauses mid-chunk, and resumes.
                if received.count % (512 << 10) < chunk.count { try await Task.sleep(nanoseconds: 20_000_000) }
            }
            #expect(received == Data(plain))
        }

        /// `count` random bytes, eight at a time: one `getrandom` call per byte (the system
        /// generator) took seconds for 6 MiB in a debug build.
        private static func randomBytes(_ count: Int) -> [UInt8] {
            var generator = SystemRandomNumberGenerator()
            var bytes = [UInt8](repeating: 0, count: count)
            bytes.withUnsafeMutableBytes { raw in
                for offset in stride(from: 0, to: raw.count - 7, by: 8) {
                    raw.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
                }
            }
            return bytes
        }

        /// The decoder took the body's last bytes but still holds their output when the reader
        /// falls behind and the transfer ends (brotli decodes all it is given into its window at
        /// once): that output arrives all the same, as the reader catches up.
        @Test func outputTheDecoderHoldsWhenTheTransferEndsArrives() async throws {
            // 16 KB of random bytes (so the body is no bomb), then 1,344 KiB of "a": 16 KB sent,
            // and the reader's 1 MiB fills long before the decoder's output is all out.
            var generator = SystemRandomNumberGenerator()
            let plain =
                (0..<16_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
                + [UInt8](repeating: 0x61, count: 1_344 << 10)
            let body = try Data(Compressors.brotli(plain))
            let server = try TestServer()
            defer { server.stop() }
            server.route("/x") { _ in
                var response = TestServer.Response.streamed([body])
                response.headers.append((name: "Content-Encoding", value: "br"))
                return response
            }
            let stream = try await Loopback.$baseURL.withValue(server.baseURL) {
                try await TestTransport.curl.client().bytes(for: HostileRawEndpoint())
            }
            // A reader busy elsewhere: the body is decoded up to the buffer's limit first.
            try await Task.sleep(nanoseconds: 100_000_000)
            var received = Data()
            for try await chunk in stream { received.append(chunk) }
            #expect(received == Data(plain))
        }

        @Test func aCorruptGzipBodyIsADecodingError() async throws {
            var body = CompressedBodies.gzip(Array(repeating: 7, count: 1000))
            body[12] ^= 0xFF
            let error = try #require(try await compressed(body, encoding: "gzip").failure())
            #expect(error.urlErrorCode == .cannotDecodeContentData, "got \(error)")
        }

        /// A request with a body never waits for `100 Continue`: libcurl's `Expect` is off.
        @Test func noExpectHeaderIsSent() async throws {
            let server = try TestServer()
            defer { server.stop() }
            let big = String(repeating: "a", count: 2 << 20)
            _ = try await send(PostEndpoint("echo", name: big), to: server, via: .curl).get()
            #expect(server.requests.last?.header("Expect") == nil)
        }
    #endif

    /// A redirect back to itself ends after 16 hops with `.httpTooManyRedirects`.
    @Test(arguments: TestTransport.all)
    func aRedirectLoopEnds(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/x") { _ in TestServer.Response(status: 302, headers: [("Location", "/x")], body: Data()) }
        let error = try #require(await send(HostileRawEndpoint(), to: server, via: transport).failure())
        #expect(error.urlErrorCode == .httpTooManyRedirects, "got \(error)")
        #expect(String(describing: error).contains("redirected more than 16 times"), "got \(error)")
        #expect(server.requestCount == 17)
    }

    /// A 3xx whose `Location` is missing, empty or not a URL is the answer, with its status and
    /// body: an empty one would name the same URL again (RFC 3986 §5.2), to the hop limit. Linux's
    /// URLSession drops the body of such a redirect (and fails one whose `Location` is blanks:
    /// corelibs' parser refuses the head); the library no longer takes the empty body for one cut
    /// short.
    @Test(arguments: [nil, "", "   ", "http://[::1", "http://exa mple.com/"], TestTransport.all)
    func aRedirectWithNoUsableLocationIsTheAnswer(location: String?, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/x") { _ in
            TestServer.Response(
                status: 302, headers: location.map { [("Location", $0)] } ?? [], body: Data("moved".utf8))
        }
        let result = await send(RawRouteEndpoint("x"), to: server, via: transport)
        if location == "   ", transport.pinsLinuxURLSessionFailure(result, code: .badServerResponse) { return }
        guard case .errorResponse(let response, let body) = result.failure() else {
            Issue.record("expected the 302 itself, got \(result)")
            return
        }
        #expect(response.statusCode == 302)
        #expect(body == (transport.dropsUnfollowedRedirectBodies ? Data() : Data("moved".utf8)))
        #expect(server.requestCount == 1)
    }

    /// The protocol name of a status line in lower case (`http/1.1`) is read, as libcurl and Linux's
    /// URLSession read it.
    @Test(arguments: TestTransport.all)
    func aLowerCaseStatusLineIsRead(via transport: TestTransport) async throws {
        let data = try await fetch("http/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", via: transport).get()
        #expect(data == Data("abc".utf8))
    }

    /// A redirect to another scheme is not followed.
    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/x", "dict://127.0.0.1/x"])
    func aRedirectToAnotherSchemeIsNotFollowed(location: String) async throws {
        for transport in TestTransport.all {
            let server = try TestServer()
            defer { server.stop() }
            server.route("/x") { _ in TestServer.Response(status: 302, headers: [("Location", location)], body: Data())
            }
            let result = await send(HostileRawEndpoint(), to: server, via: transport)
            guard case .failure(let error) = result else {
                Issue.record("\(transport): the redirect to \(location) was followed")
                continue
            }
            if transport != .urlSession {
                #expect(error.urlErrorCode == .unsupportedURL, "got \(error)")
            }
        }
    }
}
