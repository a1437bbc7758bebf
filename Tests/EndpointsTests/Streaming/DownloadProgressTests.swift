import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints  // TransferProgress values, and the DownloadSink a transport reports to

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download's progress reaches its closure while the body is written, on every kind of
/// transport: the server sends each chunk of the body only once the client has reported the ones
/// before it, so a report that waits for the end of the body holds the body back, and the test
/// counts the chunks sent without one (it never times the reports).
@Suite struct DownloadProgressTests {
    /// The ways a body reaches the download call.
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// `URLSession.shared`, through the default transport (on Linux, corelibs).
        case urlSession
        /// A transport of one's own that streams the body back (through `ResponseBody(_:)`).
        case customStream
        /// A transport that receives the body into a file itself and reports its progress to the
        /// call's `DownloadSink`, as a transport on another HTTP stack (libcurl) does.
        case receivesTheBodyItself
        #if canImport(FoundationNetworking)
            /// libcurl's transport (`EndpointClient()`'s default on Linux).
            case curl
        #endif

        var testDescription: String { rawValue }
    }

    /// The body: twelve chunks of 64 KiB, each more than 1 % of it.
    static let chunkSize = 64 << 10
    static let chunkCount = 12

    @Test(arguments: Kind.allCases)
    func reportsArriveWhileTheBodyIsWritten(_ kind: Kind) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let watch = ProgressWatch()
        defer { watch.giveUp() }
        let chunks = (0..<Self.chunkCount).map { Data(repeating: UInt8($0), count: Self.chunkSize) }
        server.route("/paced") { _ in
            .paced(chunks) { index in
                // Each chunk after the first waits for a report of every byte before it.
                if index > 0 { watch.wait(forBytes: Int64(index * Self.chunkSize)) }
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("endpoints-progress-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        let progress: @Sendable (TransferProgress) -> Void = { watch.record($0) }
        let total = Int64(Self.chunkSize * Self.chunkCount)

        try await Loopback.$baseURL.withValue(server.baseURL) {
            switch kind {
            case .urlSession:
                try await URLSession.shared.download(FileEndpoint("paced"), to: file, progress: progress)
            case .customStream:
                try await EndpointClient(transport: StreamingForwarder())
                    .download(FileEndpoint("paced"), to: file, progress: progress)
            case .receivesTheBodyItself:
                try await EndpointClient(transport: SpoolingTransport())
                    .download(FileEndpoint("paced"), to: file, progress: progress)
            #if canImport(FoundationNetworking)
                case .curl:
                    try await TestTransport.curl.client().download(FileEndpoint("paced"), to: file, progress: progress)
            #endif
            }
        }

        #expect(try Data(contentsOf: file) == chunks.reduce(Data(), +))
        let reports = watch.reports
        // Every chunk but the last went out only after a report of the bytes before it.
        #expect(watch.chunksSentWithoutReport == 0, "reports: \(reports.map(\.completedBytes))")
        #expect(reports.count >= Self.chunkCount, "reports: \(reports.map(\.completedBytes))")
        #expect(reports.last == TransferProgress(completedBytes: total, totalBytes: total))
        #expect(reports.map(\.completedBytes) == reports.map(\.completedBytes).sorted())
    }
}

/// What a download reported, which the server's connection thread waits on.
private final class ProgressWatch: Sendable {
    private struct State {
        var reports: [TransferProgress] = []
        /// Chunks the server sent because no report came within the wait, not because one came.
        var missed = 0
        var gaveUp = false
    }

    private let condition = NSCondition()
    // Only read or written with `condition` locked.
    private nonisolated(unsafe) var state = State()

    var reports: [TransferProgress] { locked { $0.reports } }
    var chunksSentWithoutReport: Int { locked { $0.missed } }

    func record(_ progress: TransferProgress) {
        locked { $0.reports.append(progress) }
        condition.broadcast()
    }

    /// Waits until a report of `bytes` or more came. One that does not come within
    /// ``TestTiming/giveUp`` counts as missed, and later waits do not wait, so a failing run ends.
    func wait(forBytes bytes: Int64) {
        let deadline = Date().addingTimeInterval(TestTiming.giveUp)
        condition.lock()
        defer { condition.unlock() }
        while !state.gaveUp, (state.reports.last?.completedBytes ?? 0) < bytes {
            if !condition.wait(until: deadline) {
                state.missed += 1
                state.gaveUp = true
            }
        }
    }

    /// Lets the server finish a body the test no longer waits for.
    func giveUp() {
        locked { $0.gaveUp = true }
        condition.broadcast()
    }

    private func locked<T>(_ body: (inout State) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(&state)
    }
}

/// A transport of one's own that streams: it reads the body from `URLSessionTransport` and hands
/// it on through a `ResponseBody` of its own, as a transport on another stack would.
private struct StreamingForwarder: HTTPTransport {
    let base = URLSessionTransport(session: .shared)

    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        try await base.send(request, context: RequestContext(endpointName: context.endpointName))
    }

    func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
        let (body, response) = try await base.stream(
            request, context: RequestContext(endpointName: context.endpointName))
        return (ResponseBody(body), response)
    }
}

/// A transport that receives a download's body itself: it writes each chunk to a file of its own,
/// reports progress to the call's `DownloadSink` with the head it already has, and hands the file
/// over at the end; the body it streams back to the pipeline is empty.
private struct SpoolingTransport: HTTPTransport {
    let base = StreamingForwarder()

    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        try await base.send(request, context: context)
    }

    func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse) {
        let (body, response) = try await base.stream(request, context: context)
        guard let sink = context.transfer.download, sink.accepted.contains(response.statusCode) else {
            return (body, response)
        }
        let spool = sink.destination.deletingLastPathComponent().appendingPathComponent(".spool-\(UUID())")
        let total = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        let empty = AsyncThrowingStream<Data, any Error> { continuation in
            let receiving = Task {
                do {
                    _ = FileManager.default.createFile(atPath: spool.path, contents: nil)
                    let handle = try FileHandle(forWritingTo: spool)
                    defer { try? handle.close() }
                    var written: Int64 = 0
                    for try await chunk in body {
                        try handle.write(contentsOf: chunk)
                        written += Int64(chunk.count)
                        sink.report(TransferProgress(completedBytes: written, totalBytes: total), response: response)
                    }
                    sink.spool(spool)
                    continuation.finish()
                } catch {
                    try? FileManager.default.removeItem(at: spool)
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in receiving.cancel() }
        }
        return (ResponseBody(empty), response)
    }
}
