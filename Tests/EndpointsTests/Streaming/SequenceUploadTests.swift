import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints  // TransferProgress values to compare with (made by the library only)

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `PUT /flaky`: 503 with `Retry-After: 0` the first time, then the size of the body it got.
struct FlakyUpload: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = ReceivedBody
    typealias ErrorResponse = APIError
    static let definition: Definition<FlakyUpload> = Definition(method: .put, path: "flaky")
}

struct ReceivedBody: Codable, Sendable, Equatable {
    let bytes: Int
}

struct UploadSourceFailed: Error {}

/// Uploads whose body is an `AsyncSequence`: spooled to a temporary file, then sent like a file.
@Suite struct SequenceUploadTests {
    private static let contents = Data((0..<300_000).map { UInt8(($0 * 13) % 251) })

    private static func chunks(of data: Data, size: Int = 4096) -> AsyncStream<Data> {
        AsyncStream { continuation in
            var start = 0
            while start < data.count {
                continuation.yield(data.subdata(in: start..<min(start + size, data.count)))
                start += size
            }
            continuation.finish()
        }
    }

    @Test(arguments: TestTransport.all)
    func chunksAreSentWholeWithTheirLengthAndProgress(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let reports = LockedBox<[TransferProgress]>([])
        let echo = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().upload(UploadEndpoint(), from: Self.chunks(of: Self.contents)) {
                progress in reports.mutate { $0.append(progress) }
            }
        }
        #expect(echo.method == "PUT")
        #expect(echo.headers["content-length"] == String(Self.contents.count))
        #expect(server.requests.last?.body == Self.contents)
        let total = Int64(Self.contents.count)
        #expect(reports.value.last == TransferProgress(completedBytes: total, totalBytes: total))
    }

    @Test(arguments: TestTransport.all)
    func singleBytesAreSentToo(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let bytes = AsyncStream<UInt8> { continuation in
            for byte in Self.contents { continuation.yield(byte) }
            continuation.finish()
        }
        _ = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().upload(UploadEndpoint(), from: bytes)
        }
        #expect(server.requests.last?.body == Self.contents)
    }

    @Test(arguments: TestTransport.all)
    func aRetrySendsTheWholeBodyAgain(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let attempts = LockedBox(0)
        server.route("/flaky") { request in
            attempts.mutate { $0 += 1 }
            if attempts.value == 1 {
                return TestServer.Response(status: 503, headers: [("Retry-After", "0")])
            }
            return .json(ReceivedBody(bytes: request.body.count))
        }
        // An hour's budget: beside two busy loops the first 503 came back after 35 s, past the default 30.
        let retry = RetryMiddleware(budget: 3600, seed: 1)
        let received = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await transport.client().upload(
                FlakyUpload(), from: Self.chunks(of: Self.contents), middleware: [retry])
        }
        #expect(received == ReceivedBody(bytes: Self.contents.count))
        #expect(server.requests.map(\.body) == [Self.contents, Self.contents])
    }

    // MARK: A sequence that fails while it is spooled, before the transport is called: one transport.

    @Test func aFailingSequenceSendsNothing() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("partial".utf8))
            continuation.finish(throwing: UploadSourceFailed())
        }
        let error = await #expect(throws: UploadEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await URLSession.shared.upload(UploadEndpoint(), from: failing)
            }
        }
        guard case .streamError(let underlying) = error else {
            Issue.record("expected the sequence's error, got \(String(describing: error))")
            return
        }
        #expect(underlying is UploadSourceFailed)
        #expect(error?.stage == .stream)
        #expect(server.requestCount == 0)
    }

    @Test func aCancelledSequenceIsCancelled() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let cancelled = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.finish(throwing: CancellationError())
        }
        let error = await #expect(throws: UploadEndpoint.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await URLSession.shared.upload(UploadEndpoint(), from: cancelled)
            }
        }
        #expect(error?.isCancelled == true)
        #expect(server.requestCount == 0)
    }
}
