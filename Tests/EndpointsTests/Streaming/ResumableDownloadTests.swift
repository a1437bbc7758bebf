import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints  // DownloadResumption, the state alone; TransferProgress values to compare with

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A file as a static file server serves it (`TestServer.Response.file(_:etag:for:)`), and its
/// first bytes on a connection that then drops.
struct RangeServedFile: Sendable {
    let body: Data
    let etag: String

    /// `count` bytes of a pattern unlike the test server's generated one, tagged `etag`.
    init(count: Int, seed: UInt8 = 7, etag: String = "\"v1\"") {
        body = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
        self.etag = etag
    }

    /// The first `count` bytes, then the connection closes: a download that fails mid-way.
    func dropped(after count: Int) -> TestServer.Response {
        var response = TestServer.Response.streamed([body.prefix(count)], then: .drop)
        response.headers.append((name: "ETag", value: etag))
        return response
    }

    func answer(_ request: TestServer.Request) -> TestServer.Response {
        .file(body, etag: etag, for: request)
    }

    /// Routes `/file` on `server`: its first request is answered with the first `count` bytes on
    /// a connection that then drops, every later one by `later` (this file, by default).
    func route(
        on server: TestServer, droppingFirstAfter count: Int,
        then later: (@Sendable (TestServer.Request) -> TestServer.Response)? = nil
    ) {
        let sends = LockedBox(0)
        server.route("/file") { request in
            var isFirst = false
            sends.mutate {
                $0 += 1
                isFirst = $0 == 1
            }
            if isFirst { return dropped(after: count) }
            return later?(request) ?? answer(request)
        }
    }

    /// The first byte of a `Range: bytes=N-`.
    static func rangeStart(_ request: TestServer.Request) -> Int? {
        guard let range = request.header("Range"), range.hasPrefix("bytes="), range.hasSuffix("-") else { return nil }
        return Int(range.dropFirst(6).dropLast())
    }
}

/// Starts `download`, cancels it (a pause) once `threshold` bytes were written, and expects
/// `.cancelled`.
func pauseDownload<T: Endpoint>(
    _: T.Type, at threshold: Int64,
    _ download: @escaping @Sendable (@escaping @Sendable (TransferProgress) -> Void) async throws -> HTTPURLResponse
) async {
    let written = AsyncStream<Void>.makeStream()
    let task = Task { try await download { if $0.completedBytes >= threshold { written.continuation.yield() } } }
    var events = written.stream.makeAsyncIterator()
    _ = await events.next()
    task.cancel()
    let result = await task.result
    guard case .failure(let error) = result, case .cancelled = error as? T.TaskError else {
        Issue.record("expected .cancelled, got \(result)")
        return
    }
}

/// `download(_:to:resumable:)`: a download that failed or was cancelled keeps what it received
/// beside its destination, and the next resumable download of the same URL asks only for the rest.
@Suite struct ResumableDownloadTests {
    /// A directory of its own with `destination` in it holding `"old contents"`.
    struct Scratch {
        let directory: URL
        let destination: URL
        static let old = Data("old contents".utf8)

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "endpoints-resume-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            destination = directory.appendingPathComponent("installer.bin")
            try Scratch.old.write(to: destination)
        }

        var partial: URL { directory.appendingPathComponent(".installer.bin.partial") }
        var record: URL { directory.appendingPathComponent(".installer.bin.partial.json") }

        func contents() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        }

        func size(of file: URL) throws -> Int {
            ((try FileManager.default.attributesOfItem(atPath: file.path))[.size] as? NSNumber)?.intValue ?? -1
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    private static func recording(_ reports: LockedBox<[TransferProgress]>) -> @Sendable (TransferProgress) -> Void {
        { progress in reports.mutate { $0.append(progress) } }
    }

    /// Downloads `route` resumably, expecting a failure.
    private static func failedDownload(
        _ route: String, to scratch: Scratch, from server: TestServer, via transport: TestTransport
    ) async {
        await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(FileEndpoint(route), to: scratch.destination, resumable: true)
            }
        }
    }

    // MARK: Resumed

    /// The connection drops after 64 KiB: the destination keeps its old bytes, the 64 KiB are
    /// kept beside it, and the next download asks for the rest with the tag it came with.
    @Test(arguments: [false, true], TestTransport.all)
    func aDroppedDownloadResumesWithTheRest(withProgress: Bool, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 200_000)
        file.route(on: server, droppingFirstAfter: 64 << 10)
        let scratch = try Scratch()
        defer { scratch.remove() }

        await Self.failedDownload("file", to: scratch, from: server, via: transport)
        #expect(try Data(contentsOf: scratch.destination) == Scratch.old)
        #expect(try scratch.size(of: scratch.partial) == 64 << 10)
        #expect(try scratch.contents() == [".installer.bin.partial", ".installer.bin.partial.json", "installer.bin"])

        let reports = LockedBox<[TransferProgress]>([])
        let response = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(
                FileEndpoint("file"), to: scratch.destination, resumable: true,
                progress: withProgress ? Self.recording(reports) : nil)
        }
        #expect(response.statusCode == 206)
        #expect(try Data(contentsOf: scratch.destination) == file.body)
        #expect(try scratch.contents() == ["installer.bin"])
        let resumed = server.requests.last
        #expect(resumed?.header("Range") == "bytes=65536-")
        #expect(resumed?.header("If-Range") == "\"v1\"")
        #expect(resumed?.header("Accept-Encoding") == "identity")
        if withProgress {
            #expect(reports.value.last == TransferProgress(completedBytes: 200_000, totalBytes: 200_000))
            #expect(reports.value.allSatisfy { $0.completedBytes > 64 << 10 && $0.totalBytes == 200_000 })
        }
    }

    /// A download paused by cancelling its task, then resumed: the pause keeps what arrived.
    @Test(arguments: TestTransport.all)
    func aCancelledDownloadResumes(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 128 << 10)
        let released = DispatchSemaphore(value: 0)
        let sends = LockedBox(0)
        server.route("/file") { request in
            sends.mutate { $0 += 1 }
            guard sends.value == 1 else { return file.answer(request) }
            var response = TestServer.Response.paced([file.body.prefix(32 << 10), file.body.dropFirst(32 << 10)]) {
                if $0 > 0 { _ = released.wait(timeout: .now() + TestTiming.giveUp) }
            }
            response.headers.append((name: "ETag", value: file.etag))
            return response
        }
        defer { released.signal() }
        let scratch = try Scratch()
        defer { scratch.remove() }

        await pauseDownload(FileEndpoint.self, at: 32 << 10) { progress in
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(
                    FileEndpoint("file"), to: scratch.destination, resumable: true, progress: progress)
            }
        }
        released.signal()
        #expect(try scratch.size(of: scratch.partial) == 32 << 10)

        try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(FileEndpoint("file"), to: scratch.destination, resumable: true)
        }
        #expect(try Data(contentsOf: scratch.destination) == file.body)
        #expect(server.requests.last?.header("Range") == "bytes=32768-")
        #expect(try scratch.contents() == ["installer.bin"])
    }

    /// The range fields are the request's own from the start: a client's logging shows them.
    @Test func aClientsLoggingShowsTheRange() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 100_000)
        file.route(on: server, droppingFirstAfter: 40_000)
        let scratch = try Scratch()
        defer { scratch.remove() }
        await Self.failedDownload("file", to: scratch, from: server, via: .urlSession)
        let capture = LogCapture()
        let client = EndpointClient(
            transport: URLSessionTransport(session: .shared),
            middleware: [LoggingMiddleware(level: .headers, sink: capture.sink)])
        try await Loopback.$baseURL.withValue(server.baseURL) {
            try await client.download(FileEndpoint("file"), to: scratch.destination, resumable: true)
        }
        #expect(capture.text.contains("Range: bytes=40000-"), "\(capture.text)")
        #expect(capture.text.contains("If-Range: \"v1\""), "\(capture.text)")
    }

    /// While one download continues the kept bytes (and holds their lock), a second one to the
    /// same destination writes a file of its own and asks for the whole; both complete.
    @Test func aSecondDownloadOfTheSameDestinationDoesNotShareTheKeptBytes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 100_000)
        let resumedArrived = AsyncStream<Void>.makeStream()
        let released = DispatchSemaphore(value: 0)
        defer { released.signal() }
        file.route(on: server, droppingFirstAfter: 40_000) { request in
            guard let start = RangeServedFile.rangeStart(request) else { return file.answer(request) }
            resumedArrived.continuation.yield()
            var response = TestServer.Response.paced([file.body.dropFirst(start)]) { _ in
                _ = released.wait(timeout: .now() + TestTiming.giveUp)
            }
            response.status = 206
            response.headers += [("ETag", file.etag), ("Content-Range", "bytes \(start)-99999/100000")]
            return response
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        await Self.failedDownload("file", to: scratch, from: server, via: .urlSession)

        let resumed = Task {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await URLSession.shared.download(FileEndpoint("file"), to: scratch.destination, resumable: true)
            }
        }
        var arrivals = resumedArrived.stream.makeAsyncIterator()
        _ = await arrivals.next()
        let second = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await URLSession.shared.download(FileEndpoint("file"), to: scratch.destination, resumable: true)
        }
        #expect(second.statusCode == 200)
        #expect(try Data(contentsOf: scratch.destination) == file.body)
        released.signal()
        #expect(try await resumed.value.statusCode == 206)
        #expect(try Data(contentsOf: scratch.destination) == file.body)
        #expect(try scratch.contents() == ["installer.bin"])
    }

    /// A continued part that ends before its `Content-Range` said (a chunked body, which no
    /// `Content-Length` holds to its length): the download fails, and the kept bytes, which the
    /// part does not complete, are dropped.
    @Test(arguments: TestTransport.all)
    func aShortPartFailsAndDropsTheKeptBytes(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 100_000)
        file.route(on: server, droppingFirstAfter: 40_000) { _ in
            var response = TestServer.Response.streamed([file.body.subdata(in: 40_000..<50_000)])
            response.status = 206
            response.headers += [("ETag", file.etag), ("Content-Range", "bytes 40000-99999/100000")]
            return response
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        await Self.failedDownload("file", to: scratch, from: server, via: transport)
        let error = await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(FileEndpoint("file"), to: scratch.destination, resumable: true)
            }
        }
        #expect(error?.urlErrorCode == .badServerResponse, "\(String(describing: error))")
        #expect(try Data(contentsOf: scratch.destination) == Scratch.old)
        #expect(try scratch.contents() == ["installer.bin"])
    }

    /// Through a client with an `HTTPCache`: the cache passes the range with its `If-Range` to
    /// the server (that one is the server's to judge), and the download continues as without it.
    @Test func aClientsCacheLetsTheRangeThrough() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 100_000)
        file.route(on: server, droppingFirstAfter: 40_000) { request in
            var response = file.answer(request)
            response.headers.append((name: "Cache-Control", value: "max-age=600"))
            return response
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let client = EndpointClient(transport: URLSessionTransport(session: .shared), middleware: [HTTPCache()])
        await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await client.download(FileEndpoint("file"), to: scratch.destination, resumable: true)
            }
        }
        let response = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await client.download(FileEndpoint("file"), to: scratch.destination, resumable: true)
        }
        #expect(response.statusCode == 206)
        #expect(server.requests.last?.header("Range") == "bytes=40000-")
        #expect(try Data(contentsOf: scratch.destination) == file.body)
    }

    // MARK: Written from the start

    /// The file changed after the drop: `If-Range` no longer names it, and the server sends the
    /// new file whole, which replaces the kept bytes rather than joining them.
    @Test(arguments: TestTransport.all)
    func aChangedFileComesBackWhole(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let old = RangeServedFile(count: 100_000)
        let new = RangeServedFile(count: 150_000, seed: 99, etag: "\"v2\"")
        old.route(on: server, droppingFirstAfter: 40_000) { new.answer($0) }
        let scratch = try Scratch()
        defer { scratch.remove() }
        await Self.failedDownload("file", to: scratch, from: server, via: transport)

        let response = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(FileEndpoint("file"), to: scratch.destination, resumable: true)
        }
        #expect(response.statusCode == 200)
        #expect(server.requests.last?.header("If-Range") == "\"v1\"")
        #expect(try Data(contentsOf: scratch.destination) == new.body)
        #expect(try scratch.contents() == ["installer.bin"])
    }

    /// A server that ignores `Range` answers 200 with the whole: written from the start, not
    /// appended to the kept bytes.
    @Test(arguments: TestTransport.all)
    func aServerIgnoringRangesIsWrittenFromTheStart(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 100_000)
        file.route(on: server, droppingFirstAfter: 40_000) { _ in
            TestServer.Response(headers: [("ETag", file.etag)], body: file.body)
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        await Self.failedDownload("file", to: scratch, from: server, via: transport)
        try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(FileEndpoint("file"), to: scratch.destination, resumable: true)
        }
        #expect(server.requests.last?.header("Range") == "bytes=40000-")
        #expect(try Data(contentsOf: scratch.destination) == file.body)
    }

    /// Answers that cannot continue the kept bytes, a 416 and a part that starts elsewhere: the
    /// download asks once more, for the whole.
    @Test(arguments: ["416", "elsewhere"], TestTransport.all)
    func anAnswerThatCannotContinueAsksForTheWhole(answer: String, via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 100_000)
        file.route(on: server, droppingFirstAfter: 40_000) { request in
            guard RangeServedFile.rangeStart(request) != nil else { return file.answer(request) }
            return answer == "416"
                ? TestServer.Response(status: 416, headers: [("Content-Range", "bytes */100000")])
                : TestServer.Response(
                    status: 206, headers: [("ETag", file.etag), ("Content-Range", "bytes 0-99/100000")],
                    body: file.body.prefix(100))
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        await Self.failedDownload("file", to: scratch, from: server, via: transport)
        let response = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().download(FileEndpoint("file"), to: scratch.destination, resumable: true)
        }
        #expect(response.statusCode == 200)
        let requests = server.requests
        #expect(requests.count == 3)
        #expect(requests.dropFirst().first?.header("Range") == "bytes=40000-")
        #expect(requests.last?.header("Range") == nil)
        #expect(try Data(contentsOf: scratch.destination) == file.body)
        #expect(try scratch.contents() == ["installer.bin"])
    }

    // MARK: Nothing kept

    /// A response without a validator cannot be resumed safely: nothing is kept, as without
    /// `resumable`; and a download that is not resumable neither uses nor removes kept bytes.
    @Test(arguments: TestTransport.all)
    func onlyAValidatedResponseIsKept(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 100_000)
        server.route("/untagged") { _ in .streamed([file.body.prefix(40_000)], then: .drop) }
        server.route("/tagged") { _ in file.dropped(after: 40_000) }
        let scratch = try Scratch()
        defer { scratch.remove() }
        await Self.failedDownload("untagged", to: scratch, from: server, via: transport)
        #expect(try scratch.contents() == ["installer.bin"])

        await Self.failedDownload("tagged", to: scratch, from: server, via: transport)
        await #expect(throws: FileEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await transport.client().download(FileEndpoint("tagged"), to: scratch.destination)
            }
        }
        #expect(server.requests.last?.header("Range") == nil)
        #expect(try scratch.size(of: scratch.partial) == 40_000)
        #expect(try Data(contentsOf: scratch.destination) == Scratch.old)
    }

    /// Kept bytes of another URL are not continued: the download asks for the whole and its
    /// bytes replace them.
    @Test func keptBytesOfAnotherURLAreReplaced() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 100_000)
        server.route("/first") { _ in file.dropped(after: 40_000) }
        server.route("/second") { request in file.answer(request) }
        let scratch = try Scratch()
        defer { scratch.remove() }
        await Self.failedDownload("first", to: scratch, from: server, via: .urlSession)
        try await Loopback.$baseURL.withValue(server.baseURL) {
            try await URLSession.shared.download(FileEndpoint("second"), to: scratch.destination, resumable: true)
        }
        #expect(server.requests.last?.header("Range") == nil)
        #expect(try Data(contentsOf: scratch.destination) == file.body)
        #expect(try scratch.contents() == ["installer.bin"])
    }

    /// A record edited to carry a line break never reaches a request: the kept bytes are not
    /// continued.
    @Test func aRecordWithALineBreakIsIgnored() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = RangeServedFile(count: 10_000)
        server.route("/file") { request in file.answer(request) }
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Data(count: 500).write(to: scratch.partial)
        let record = DownloadResumption.Record(
            url: DownloadResumption.key(of: server.baseURL.appendingPathComponent("file")),
            validator: "\"v1\"\r\nX-Injected: 1")
        try JSONEncoder().encode(record).write(to: scratch.record)
        try await Loopback.$baseURL.withValue(server.baseURL) {
            try await URLSession.shared.download(FileEndpoint("file"), to: scratch.destination, resumable: true)
        }
        #expect(server.requests.last?.header("Range") == nil)
        #expect(server.requests.last?.header("X-Injected") == nil)
        #expect(try Data(contentsOf: scratch.destination) == file.body)
    }
}

/// ``DownloadResumption`` alone: what it asks for and what each answer means.
@Suite struct DownloadResumptionTests {
    private static let url = URL(string: "https://files.example/installer.bin")!
    private static let key = DownloadResumption.key(of: url)

    private static func fields(_ pairs: [String: String]) -> (String) -> String? {
        { name in pairs.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    @Test func nothingKeptAsksForTheWholeAndRecordsAStrongTag() {
        var state = DownloadResumption(record: nil, kept: 0)
        let asked = state.ask(for: Self.url, hasRange: false)
        #expect(asked == nil)
        let action = state.receive(status: 200, field: Self.fields(["ETag": " \"abc\" ", "Content-Length": "5000"]))
        #expect(action == .restart(record: .init(url: Self.key, validator: "\"abc\"", length: 5000)))
    }

    @Test func keptBytesAreAskedForFromTheirEnd() {
        var state = DownloadResumption(record: .init(url: Self.key, validator: "\"abc\""), kept: 1000)
        let asked = state.ask(for: Self.url, hasRange: false)
        #expect(asked?.range == "bytes=1000-")
        #expect(asked?.ifRange == "\"abc\"")
        let action = state.receive(
            status: 206, field: Self.fields(["Content-Range": "bytes 1000-4999/5000", "ETag": "\"abc\""]))
        #expect(action == .append(total: 5000))
    }

    @Test func anUnknownLengthIsNoTotal() {
        var state = DownloadResumption(record: .init(url: Self.key, validator: "\"abc\""), kept: 10)
        _ = state.ask(for: Self.url, hasRange: false)
        let action = state.receive(status: 206, field: Self.fields(["Content-Range": "bytes 10-19/*"]))
        #expect(action == .append(total: nil))
    }

    @Test(arguments: [
        ["Content-Range": "bytes 0-4999/5000"],  // another start
        ["Content-Range": "bytes 1000-4999/5000", "ETag": "\"other\""],  // another representation
        ["Content-Range": "bytes 1000-4999/5000", "Content-Encoding": "gzip"],  // encoded
        ["Content-Type": "multipart/byteranges; boundary=x"],  // several parts, no Content-Range
        ["Content-Range": "bytes 1000-5999/6000"],  // another length than the whole's
        ["Content-Range": "bytes 1000-4999/5000", "Content-Length": "3000"],  // a body that is not the range
    ])
    func aPartThatCannotContinueAsksForTheWhole(fields: [String: String]) {
        var state = DownloadResumption(record: .init(url: Self.key, validator: "\"abc\"", length: 5000), kept: 1000)
        _ = state.ask(for: Self.url, hasRange: false)
        let action = state.receive(status: 206, field: Self.fields(fields))
        #expect(action == .askWhole)
        let askedAgain = state.ask(for: Self.url, hasRange: false)
        #expect(askedAgain == nil)
    }

    @Test func aWholeAnswerToARangeStartsAgainWithItsOwnTag() {
        var state = DownloadResumption(record: .init(url: Self.key, validator: "\"abc\""), kept: 1000)
        _ = state.ask(for: Self.url, hasRange: false)
        let action = state.receive(status: 200, field: Self.fields(["ETag": "\"new\""]))
        #expect(action == .restart(record: .init(url: Self.key, validator: "\"new\"")))
        #expect(state.kept == 0)
    }

    @Test func a416AsksForTheWholeOnce() {
        var state = DownloadResumption(record: .init(url: Self.key, validator: "\"abc\""), kept: 1000)
        // Nothing was asked yet.
        let beforeAsking = state.refused(status: 416)
        #expect(!beforeAsking)
        _ = state.ask(for: Self.url, hasRange: false)
        let unavailable = state.refused(status: 503)
        #expect(!unavailable)
        let unsatisfiable = state.refused(status: 416)
        #expect(unsatisfiable)
        let askedAgain = state.ask(for: Self.url, hasRange: false)
        #expect(askedAgain == nil)
        let twice = state.refused(status: 416)
        #expect(!twice)
    }

    @Test func anotherURLOrTheCallersOwnRangeAsksForNothing() {
        var state = DownloadResumption(record: .init(url: Self.key, validator: "\"abc\""), kept: 1000)
        let otherURL = state.ask(for: URL(string: "https://files.example/other.bin"), hasRange: false)
        #expect(otherURL == nil)
        let ownRange = state.ask(for: Self.url, hasRange: true)
        #expect(ownRange == nil)
        // The caller's own 206 is written as it is, and not kept.
        let action = state.receive(status: 206, field: Self.fields(["Content-Range": "bytes 0-9/10"]))
        #expect(action == .restart(record: nil))
    }

    @Test func aRecordWithoutKeptBytesIsNothing() {
        var state = DownloadResumption(record: .init(url: Self.key, validator: "\"abc\""), kept: 0)
        #expect(state.record == nil)
        let asked = state.ask(for: Self.url, hasRange: false)
        #expect(asked == nil)
    }

    /// Response fields, and the validator they give.
    private static let validators: [([String: String], String?)] = [
        (["ETag": "\"abc\""], "\"abc\""),
        // Unquoted, as httpbin sends it: sent back as it came.
        (["ETag": "range1024"], "range1024"),
        // Weak.
        (["ETag": "W/\"abc\""], nil),
        // A weak tag, and a modification a second before the response.
        (
            [
                "ETag": "W/\"abc\"", "Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT",
                "Date": "Tue, 01 Dec 2026 10:00:01 GMT",
            ], "Tue, 01 Dec 2026 10:00:00 GMT"
        ),
        // Modified in the second of the response: it may change again within it.
        (["Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT", "Date": "Tue, 01 Dec 2026 10:00:00 GMT"], nil),
        // No Date to compare with.
        (["Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT"], nil),
        (["ETag": "\"abc\"", "Content-Encoding": "gzip"], nil),
        (["ETag": "\"abc\"", "Content-Encoding": "identity"], "\"abc\""),
        ([:], nil),
        // Outsized, or not printable ASCII: it could not go back as it came.
        (["ETag": "\"" + String(repeating: "a", count: 1100) + "\""], nil),
        (["ETag": "\"caf\u{E9}\""], nil),
    ]

    @Test(arguments: validators)
    func theValidator(fields: [String: String], expected: String?) {
        #expect(DownloadResumption.validator(Self.fields(fields)) == expected)
    }
}
