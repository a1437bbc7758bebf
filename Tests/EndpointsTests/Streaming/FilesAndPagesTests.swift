import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints  // TransferProgress values to compare with (made by the library only)

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /{route}` returned raw, for downloads.
struct FileEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    typealias ErrorResponse = APIError

    static let definition: Definition<FileEndpoint> = Definition(path: "\(path: \.route)")

    let pathComponents: Route

    init(_ route: String) { pathComponents = Route(route: route) }
}

/// `PUT /echo` whose body is a file; the echo comes back.
struct UploadEndpoint: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Echo
    typealias ErrorResponse = APIError

    static let definition: Definition<UploadEndpoint> = Definition(method: .put, path: "echo")
}

/// `GET /items?page=N`: pages linked with `Link: rel="next"`.
struct LinkedItems: PaginatedEndpoint {
    typealias Server = LoopbackServer
    typealias Response = [Int]
    typealias ErrorResponse = APIError

    static let definition: Definition<LinkedItems> = Definition(path: "items")
}

/// `GET /cursor?cursor=C`: pages with the next cursor in the body.
struct CursorItems: PaginatedEndpoint {
    typealias Server = LoopbackServer
    typealias ErrorResponse = APIError
    struct Response: Decodable, Sendable {
        let items: [Int]
        let next: String?
    }
    struct ParameterComponents: Sendable { var cursor: String? }

    static let definition: Definition<CursorItems> = Definition(
        path: "cursor", parameters: [.query("cursor", path: \.cursor)])

    var parameterComponents = ParameterComponents(cursor: nil)

    func nextPage(after page: Response, response: HTTPURLResponse) -> NextPage<CursorItems> {
        guard let next = page.next else { return .none }
        return .endpoint(CursorItems(parameterComponents: ParameterComponents(cursor: next)))
    }
}

@Suite struct FilesAndPagesTests {
    private func temporaryFile(_ name: String = "download") -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("endpoints-\(name)-\(UUID().uuidString)")
    }

    @Test(arguments: TestTransport.all)
    func aDownloadGoesToTheFileWithProgress(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let count = 3 << 20
        server.route("/file") { _ in .generated(count: count) }
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let reports = LockedBox<[TransferProgress]>([])
        let response = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(FileEndpoint("file"), to: file) { progress in
                reports.mutate { $0.append(progress) }
            }
        }
        #expect(response.statusCode == 200)
        let data = try Data(contentsOf: file)
        #expect(data.count == count)
        #expect(data.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset) })
        #expect(reports.value.last == TransferProgress(completedBytes: Int64(count), totalBytes: Int64(count)))
        #expect(reports.value.map(\.completedBytes) == reports.value.map(\.completedBytes).sorted())
        // A report every 1 % and 100 ms at most (DownloadProgressTests checks they come as the body
        // is written): over loopback, 3 MB take a handful.
        #expect(reports.value.count <= 101)
    }

    /// A body the transport decodes has no known total: its `Content-Length` counts the encoded
    /// bytes, which the decoded ones written would pass long before the end.
    @Test(arguments: TestTransport.all)
    func aDecodedDownloadReportsNoTotal(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let plain = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 / 7) }
        let encoded = Data(CompressedBodies.gzip(plain))
        server.route("/file") { _ in
            TestServer.Response(status: 200, headers: [("Content-Encoding", "gzip")], body: encoded)
        }
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let reports = LockedBox<[TransferProgress]>([])
        try await Loopback.$baseURL.withValue(server.baseURL) {
            _ = try await transport.client().download(FileEndpoint("file"), to: file) { progress in
                reports.mutate { $0.append(progress) }
            }
        }
        #expect(try Data(contentsOf: file) == Data(plain))
        #expect(!reports.value.isEmpty)
        #expect(reports.value.allSatisfy { $0.totalBytes == nil }, "\(reports.value)")
        #expect(reports.value.last == TransferProgress(completedBytes: Int64(plain.count), totalBytes: nil))
    }

    @Test(arguments: TestTransport.all)
    func aFailedDownloadLeavesTheDestinationAlone(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = temporaryFile()
        try Data("old".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(FileEndpoint("close-mid-body"), to: file)
            }
        }
        #expect(error?.urlErrorCode == .networkConnectionLost)
        #expect(try Data(contentsOf: file) == Data("old".utf8))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            .filter { $0.contains(file.lastPathComponent) && $0.hasSuffix(".download") }
        #expect(leftovers.isEmpty)
    }

    /// With a progress closure, the first report says the body is arriving (the body pauses after
    /// its first 64 KiB, so that much is reported); without one, the server's answer does. Either
    /// way cancelling stops the download at once and leaves nothing behind.
    @Test(arguments: [true, false], TestTransport.all)
    func cancellingADownloadMidBodyStopsItAndLeavesNoFile(withProgress: Bool, via transport: TestTransport)
        async throws
    {
        let waitsForProgress = withProgress
        let server = try TestServer()
        defer { server.stop() }
        let started = AsyncStream<Void>.makeStream()
        server.route("/stalls") { _ in
            if !waitsForProgress { started.continuation.yield() }
            return .streamed([Data(repeating: 7, count: 64 << 10)], then: .stall)
        }
        let file = temporaryFile()
        let progress: (@Sendable (TransferProgress) -> Void)? =
            withProgress ? { @Sendable _ in if waitsForProgress { started.continuation.yield() } } : nil
        let download = Task {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(FileEndpoint("stalls"), to: file, progress: progress)
            }
        }
        var events = started.stream.makeAsyncIterator()
        _ = await events.next()
        download.cancel()
        let error = await #expect(throws: FileEndpoint.TaskError.self) { try await download.value }
        guard case .cancelled = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            .filter { $0.contains(file.lastPathComponent) }
        #expect(leftovers.isEmpty)
    }

    /// Without a progress closure and with a whole-second timeout (corelibs' own idle timeout ends
    /// a stalled Linux URLSession download), a stalled download times out.
    @Test(arguments: TestTransport.all)
    func aDownloadWithoutProgressThatStallsTimesOut(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/stalls") { _ in .streamed([Data(repeating: 7, count: 1024)], then: .stall) }
        let file = temporaryFile()
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(
                    FileEndpoint("stalls"), to: file, middleware: [TimeoutMiddleware(seconds: 2)])
            }
        }
        #expect(error?.urlErrorCode == .timedOut)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test(arguments: TestTransport.all)
    func aDownloadWithoutProgressFollowsRedirectsAndKeepsItsBody(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let count = 1 << 20
        server.route("/file") { _ in .generated(count: count) }
        server.route("/moved") { _ in TestServer.Response(status: 302, headers: [("Location", "/file")]) }
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let response = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(FileEndpoint("moved"), to: file)
        }
        #expect(response.statusCode == 200)
        #expect(response.url?.path == "/file")
        let data = try Data(contentsOf: file)
        #expect(data.count == count)
        #expect(data.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset) })
    }

    @Test(arguments: TestTransport.all)
    func aDownloadThatStallsMidBodyHitsTheIdleTimeout(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/stalls") { _ in .streamed([Data(repeating: 7, count: 1024)], then: .stall) }
        let file = temporaryFile()
        let written = LockedBox<Int64>(0)
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(
                    FileEndpoint("stalls"), to: file, middleware: [TimeoutMiddleware(seconds: 8 * TestTiming.scale)]
                ) { progress in written.mutate { $0 = progress.completedBytes } }
            }
        }
        #expect(error?.urlErrorCode == .timedOut)
        // The body paused after 1 KiB, 8 s before the timeout: how far it came was reported.
        #expect(written.value == 1024)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// With a progress closure (on Linux a delegate's download task), the error body is still
    /// decoded as the endpoint's `ErrorResponse`.
    @Test(arguments: TestTransport.all)
    func aNon2xxDownloadWithProgressThrowsTheDecodedErrorBody(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = temporaryFile()
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(FileEndpoint("missing"), to: file) { _ in }
            }
        }
        guard case .errorResponse(let response, let body) = error else {
            Issue.record("expected .errorResponse, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 404)
        #expect(body.code == 404)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test(arguments: [false, true], TestTransport.all)
    func anEmptyBodyDownloadsAsAnEmptyFile(withProgress: Bool, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/empty") { _ in TestServer.Response(status: 200) }
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        var progress: (@Sendable (TransferProgress) -> Void)?
        if withProgress { progress = { _ in } }
        let response = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(FileEndpoint("empty"), to: file, progress: progress)
        }
        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: file).isEmpty)
    }

    @Test(arguments: TestTransport.all)
    func aNon2xxDownloadThrowsTheErrorResponseAndWritesNothing(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = temporaryFile()
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(FileEndpoint("missing"), to: file)
            }
        }
        #expect(error?.statusCode == 404)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test(arguments: TestTransport.all)
    func anUploadSendsTheFileWithProgress(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = temporaryFile("upload")
        let contents = Data((0..<(1 << 20)).map { UInt8(($0 * 7) % 256) })
        try contents.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let reports = LockedBox<[TransferProgress]>([])
        let echo = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().upload(UploadEndpoint(), fromFile: file) { progress in
                reports.mutate { $0.append(progress) }
            }
        }
        #expect(echo.method == "PUT")
        #expect(echo.headers["content-length"] == String(contents.count))
        #expect(echo.headers["content-type"] == "application/octet-stream")
        let received = try #require(server.requests.last?.body)
        #expect(received == contents)
        #expect(
            reports.value.last
                == TransferProgress(completedBytes: Int64(contents.count), totalBytes: Int64(contents.count)))
    }

    @Test(arguments: TestTransport.all)
    func aMissingUploadFileFailsBeforeSending(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = await #expect(throws: UploadEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().upload(UploadEndpoint(), fromFile: temporaryFile("absent"))
            }
        }
        #expect(error?.urlErrorCode == .cannotOpenFile)
        #expect(server.requestCount == 0)
    }

    // MARK: Pages: how the pipeline follows them, the same whatever sends each page (one transport).

    @Test func pagesFollowLinkHeaders() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/items") { request in
            let page = Int(request.queryValue("page") ?? "1") ?? 1
            var response = TestServer.Response.json([page * 10, page * 10 + 1])
            if page < 3 {
                // Relative, with another relation first, as GitHub sends them.
                response.headers.append(
                    ("Link", #"</items?page=3>; rel="last", </items?page=\#(page + 1)>; rel="next""#))
            }
            return response
        }
        let pages = try await Loopback.$baseURL.withValue(server.baseURL) {
            var pages: [[Int]] = []
            for try await page in URLSession.shared.pages(for: LinkedItems()) { pages.append(page) }
            return pages
        }
        #expect(pages == [[10, 11], [20, 21], [30, 31]])
        #expect(server.requests.map(\.rawQuery) == [nil, "page=2", "page=3"])
    }

    @Test func pagesFollowACursorFromTheBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/cursor") { request in
            switch request.queryValue("cursor") {
            case nil: .json(raw: #"{"items": [1, 2], "next": "b"}"#)
            case "b": .json(raw: #"{"items": [3], "next": "c"}"#)
            default: .json(raw: #"{"items": [4]}"#)
            }
        }
        let items = try await Loopback.$baseURL.withValue(server.baseURL) {
            var items: [Int] = []
            for try await page in URLSession.shared.pages(for: CursorItems()) { items += page.items }
            return items
        }
        #expect(items == [1, 2, 3, 4])
    }

    @Test func aPageLinkToAnotherOriginIsNotFollowed() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/items") { _ in
            var response = TestServer.Response.json([1])
            response.headers.append(("Link", #"<https://elsewhere.example/items?page=2&key=secret>; rel="next""#))
            return response
        }
        try await Loopback.$baseURL.withValue(server.baseURL) { () async throws in
            var iterator = URLSession.shared.pages(for: LinkedItems()).makeAsyncIterator()
            #expect(try await iterator.next() == [1])
            let error = await #expect(throws: LinkedItems.TaskError.self) { _ = try await iterator.next() }
            guard case .pageLinkError(let target) = error else {
                Issue.record("expected .pageLinkError, got \(String(describing: error))")
                return
            }
            #expect(error?.stage == .pageLink)
            #expect(target == "https://elsewhere.example/items")
            #expect(
                error?.description
                    == "The next page was not fetched: its link points to another origin (https://elsewhere.example/items) and was not followed, to keep credentials from it."
            )
            #expect(!String(describing: error).contains("secret"))
            #expect(try await iterator.next() == nil)
        }
        #expect(server.requestCount == 1)
    }

    @Test func aFailingPageEndsThePagesWithTheTypedError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/items") { request in
            guard request.queryValue("page") == nil else {
                return .json(raw: #"{"code": 500, "message": "boom"}"#, status: 500)
            }
            var response = TestServer.Response.json([1])
            response.headers.append(("Link", #"</items?page=2>; rel="next""#))
            return response
        }
        try await Loopback.$baseURL.withValue(server.baseURL) { () async throws in
            var iterator = URLSession.shared.pages(for: LinkedItems()).makeAsyncIterator()
            #expect(try await iterator.next() == [1])
            let error = await #expect(throws: LinkedItems.TaskError.self) { _ = try await iterator.next() }
            guard case .errorResponse(_, let body) = error else {
                Issue.record("expected .errorResponse, got \(String(describing: error))")
                return
            }
            #expect(body == APIError(code: 500, message: "boom"))
        }
    }
}
