import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /stream/{n}`: n JSON objects, one per line.
struct HTTPBinStream: Endpoint {
    typealias Server = HTTPBinServer
    struct Response: Decodable, Sendable { let id: Int }
    struct PathComponents: Sendable { let count: Int }

    static let definition: Definition<HTTPBinStream> = Definition(path: "stream/\(path: \.count)")

    let pathComponents: PathComponents
}

/// `GET /drip?numbytes=N&duration=S&delay=0`: N `*` bytes spread over S seconds.
struct HTTPBinDrip: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = Data
    struct ParameterComponents: Sendable {
        let numbytes: Int
        let duration: Double
    }

    static let definition: Definition<HTTPBinDrip> = Definition(
        path: "drip",
        parameters: [
            .query("numbytes", path: \.numbytes), .query("duration", path: \.duration), .queryValue("delay", value: 0),
        ])

    let parameterComponents: ParameterComponents
}

/// `GET /bytes/{n}` or `/range/{n}`: n bytes.
struct HTTPBinRawBytes: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = Data
    struct PathComponents: Sendable {
        let kind: String
        let count: Int
    }

    static let definition: Definition<HTTPBinRawBytes> = Definition(path: "\(path: \.kind)/\(path: \.count)")

    let pathComponents: PathComponents
}

/// `GET /gzip`, `/deflate` or `/brotli`: a JSON body in that coding, saying which.
struct HTTPBinCoded: Endpoint {
    typealias Server = HTTPBinServer
    struct Response: Decodable, Sendable {
        let gzipped: Bool?
        let deflated: Bool?
        let brotli: Bool?
        let method: String
    }
    struct PathComponents: Sendable { let coding: String }

    static let definition: Definition<HTTPBinCoded> = Definition(path: "\(path: \.coding)")

    let pathComponents: PathComponents
}

/// Streaming against httpbin: `/stream/N`, `/drip`, `/range`, `/bytes` and its compressed bodies,
/// through each transport.
@Suite(
    .enabled(
        if: HTTPBin.url != nil,
        "HTTPBIN_URL is not set; run `scripts/httpbin.sh run swift test` to include the httpbin interop suite"
    )
)
struct HTTPBinStreamingTests {
    @Test(arguments: TestTransport.all)
    func streamIsReadAsJSONLines(via transport: TestTransport) async throws {
        var ids: [Int] = []
        for try await line in try await transport.client().bytes(for: HTTPBinStream(pathComponents: .init(count: 20)))
            .lines
        {
            ids.append(line.id)
        }
        #expect(ids == Array(0..<20))
    }

    @Test(arguments: TestTransport.all)
    func dripArrivesInPieces(via transport: TestTransport) async throws {
        let stream = try await transport.client().bytes(
            for: HTTPBinDrip(parameterComponents: .init(numbytes: 10, duration: 1)))
        var chunks: [Data] = []
        for try await chunk in stream { chunks.append(chunk) }
        #expect(chunks.reduce(Data(), +) == Data(repeating: UInt8(ascii: "*"), count: 10))
        #expect(chunks.count > 1)
    }

    /// httpbin's own gzip, zlib-wrapped deflate and brotli bodies (Python's encoders, not ours)
    /// arrive decoded through each transport.
    @Test(arguments: ["gzip", "deflate", "brotli"], TestTransport.all)
    func compressedBodiesArriveDecoded(_ coding: String, via transport: TestTransport) async throws {
        let response = try await transport.client().response(with: HTTPBinCoded(pathComponents: .init(coding: coding)))
        let flag = ["gzip": response.gzipped, "deflate": response.deflated, "brotli": response.brotli][coding]
        #expect(flag == true, "\(coding): \(response)")
        #expect(response.method == "GET")
    }

    #if canImport(FoundationNetworking)
        /// The libcurl transport with a cookie store keeps the cookie httpbin sets on a redirect,
        /// sends it on the hop and later, and forgets it when httpbin expires it (`Max-Age=0`,
        /// which corelibs' `HTTPCookie` alone would not honour).
        @Test func cookiesAreKeptAndExpiredThroughAStore() async throws {
            let storage = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
            let client = EndpointClient(transport: try CurlTransport(cookies: storage))
            let set = try await client.response(with: HTTPBinSetCookie(pathComponents: .init(value: "mint")))
            #expect(set.cookies == ["flavour": "mint"])
            let deleted = try await client.response(with: HTTPBinDeleteCookie())
            #expect(deleted.cookies == [:])
            #expect(storage.cookies?.isEmpty ?? true)
        }
    #endif

    @Test(arguments: ["bytes", "range"], TestTransport.all)
    func downloadsHaveTheirLength(_ kind: String, via transport: TestTransport) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpbin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let reports = LockedBox<[TransferProgress]>([])
        try await transport.client().download(
            HTTPBinRawBytes(pathComponents: .init(kind: kind, count: 50_000)), to: file
        ) { progress in reports.mutate { $0.append(progress) } }
        #expect(try Data(contentsOf: file).count == 50_000)
        #expect(reports.value.last?.completedBytes == 50_000)
    }
}
