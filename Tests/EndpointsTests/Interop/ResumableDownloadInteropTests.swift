import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /slow/{name}` of nginx's plain server: a static file, its first 512 KiB at once and the
/// rest at 64 KiB/s (`scripts/nginx.sh`).
private struct NginxSlowFile: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    typealias ErrorResponse = APIError
    struct PathComponents: Sendable { let name: String }

    static let definition: Definition<NginxSlowFile> = Definition(path: "slow/\(path: \.name)")

    let pathComponents: PathComponents
}

/// `GET /range/102400?duration=3&chunk_size=1024`: httpbin's 100 KiB that honour `Range`, sent
/// over three seconds.
private struct HTTPBinSlowRange: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = Data

    static let definition: Definition<HTTPBinSlowRange> = Definition(
        path: "range/102400", parameters: [.queryValue("duration", value: 3), .queryValue("chunk_size", value: 1024)])
}

/// Resumable downloads against real servers: nginx's static files (its own `If-Range` check
/// against the file's entity tag) and httpbin's `/range` (an unquoted entity tag, sent back as it
/// came). Each download is paused by cancelling its task once some of the body was written, then
/// resumed.
@Suite struct ResumableDownloadInteropTests {
    private static func scratch() throws -> (directory: URL, destination: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        return (directory, directory.appendingPathComponent("file.bin"))
    }

    private static func size(_ file: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    /// nginx continues the paused download with a 206 of the rest; a file changed meanwhile
    /// comes back whole, as nginx's `If-Range` check sends it.
    @Test(.enabled(if: Nginx.isRunning, Nginx.skipReason), arguments: TestTransport.all)
    func nginxContinuesAPausedDownload(via transport: TestTransport) async throws {
        let name = "resume-\(UUID().uuidString).bin"
        let served = Nginx.root.appendingPathComponent(name)
        let original = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255) })
        try original.write(to: served)
        defer { try? FileManager.default.removeItem(at: served) }
        let (directory, destination) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let partial = directory.appendingPathComponent(".file.bin.partial")
        let client = transport.client()
        let endpoint = NginxSlowFile(pathComponents: .init(name: name))
        let download: @Sendable (_ progress: (@Sendable (TransferProgress) -> Void)?) async throws -> HTTPURLResponse =
            { progress in
                try await Loopback.$baseURL.withValue(Nginx.Server.http.url) {
                    try await client.download(endpoint, to: destination, resumable: true, progress: progress)
                }
            }

        await pauseDownload(NginxSlowFile.self, at: 512 << 10) { try await download($0) }
        let kept = Self.size(partial)
        #expect(kept >= 512 << 10 && kept < 1 << 20, "\(kept) bytes kept")
        let resumed = try await download(nil)
        #expect(resumed.statusCode == 206)
        #expect(try Data(contentsOf: destination) == original)

        // Paused again, and the file changes meanwhile (another length, so another entity tag).
        try FileManager.default.removeItem(at: destination)
        await pauseDownload(NginxSlowFile.self, at: 512 << 10) { try await download($0) }
        let changed = Data(original.reversed().prefix(600 << 10))
        try changed.write(to: served)
        let whole = try await download(nil)
        #expect(whole.statusCode == 200)
        #expect(try Data(contentsOf: destination) == changed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["file.bin"])
    }

    /// httpbin's `/range` continues a paused download from where it stopped.
    @Test(.enabled(if: HTTPBin.url != nil, "HTTPBIN_URL is not set"), arguments: TestTransport.all)
    func httpbinContinuesAPausedDownload(via transport: TestTransport) async throws {
        let (directory, destination) = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = transport.client()
        await pauseDownload(HTTPBinSlowRange.self, at: 8 << 10) { progress in
            try await client.download(HTTPBinSlowRange(), to: destination, resumable: true, progress: progress)
        }
        let kept = Self.size(directory.appendingPathComponent(".file.bin.partial"))
        #expect(kept >= 8 << 10 && kept < 102_400, "\(kept) bytes kept")
        let response = try await client.download(HTTPBinSlowRange(), to: destination, resumable: true)
        #expect(response.statusCode == 206)
        #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes \(kept)-102399/102400")
        let expected = Data((0..<102_400).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        #expect(try Data(contentsOf: destination) == expected)
    }
}
