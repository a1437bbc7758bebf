import Foundation

extension TestServer.Response {
    /// How a streamed response ends after its last chunk.
    public enum StreamEnding: Sendable {
        /// The body ends properly (the terminating zero-size chunk).
        case end
        /// The server stops sending but keeps the connection open, until it is stopped.
        case stall
        /// The connection closes without ending the body.
        case drop
    }

    /// A `Transfer-Encoding: chunked` response that writes each of `chunks` as its own chunk,
    /// pausing `pause` before each, then ends as `ending` says: for server-sent events, JSON
    /// lines, bodies split at awkward places, stalls and dropped connections.
    ///
    /// ```swift
    /// server.route("/events") { _ in
    ///     .streamed(["data: 1\n\n", "data: 2\n\n"].map { Data($0.utf8) }, pause: .milliseconds(50),
    ///               contentType: "text/event-stream")
    /// }
    /// ```
    public static func streamed(
        _ chunks: [Data],
        pause: DispatchTimeInterval = .never,
        contentType: String = "application/octet-stream",
        then ending: StreamEnding = .end
    ) -> TestServer.Response {
        var response = TestServer.Response(headers: [("Content-Type", contentType)], chunked: true)
        response.behavior = .stream(chunks: chunks, pauseNanoseconds: nanoseconds(pause), ending: ending)
        return response
    }

    /// `count` bytes (byte `i` being `i % 256`) under a `Content-Length`, generated as they are
    /// written, so a test or benchmark can download gigabytes without the server holding them.
    public static func generated(count: Int) -> TestServer.Response {
        var response = TestServer.Response(headers: [("Content-Type", "application/octet-stream")])
        response.behavior = .generated(count: count)
        return response
    }

    /// `chunks` under a `Content-Length` (their total size), each sent once `proceed` has returned
    /// for its index: it runs on the connection's own thread right before chunk `index` goes out,
    /// and may block, so a test can hold the rest of a body until the client has seen what came
    /// before (a progress report, say).
    ///
    /// ```swift
    /// let seen = DispatchSemaphore(value: 0)
    /// server.route("/file") { _ in
    ///     .paced(chunks) { index in if index > 0 { _ = seen.wait(timeout: .now() + 30) } }
    /// }
    /// ```
    public static func paced(
        _ chunks: [Data],
        contentType: String = "application/octet-stream",
        before proceed: @escaping @Sendable (_ index: Int) -> Void
    ) -> TestServer.Response {
        var response = TestServer.Response(headers: [("Content-Type", contentType)])
        response.behavior = .paced(chunks: chunks, proceed: proceed)
        return response
    }

    private static func nanoseconds(_ interval: DispatchTimeInterval) -> UInt64 {
        switch interval {
        case .seconds(let value): UInt64(max(0, value)) * 1_000_000_000
        case .milliseconds(let value): UInt64(max(0, value)) * 1_000_000
        case .microseconds(let value): UInt64(max(0, value)) * 1_000
        case .nanoseconds(let value): UInt64(max(0, value))
        default: 0
        }
    }
}

extension ResponseWriter {
    static func writeStream(
        _ chunks: [Data], chunked: Bool, pause: UInt64, ending: TestServer.Response.StreamEnding, to fd: Int32,
        isStopped: () -> Bool
    ) -> Bool {
        for chunk in chunks where !chunk.isEmpty {
            if pause > 0, !sleep(nanoseconds: pause, isStopped: isStopped) { return false }
            let framed =
                chunked ? Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10] : Array(chunk)
            guard Socket.sendAll(fd, framed) else { return false }
        }
        switch ending {
        case .end:
            return chunked ? Socket.sendAll(fd, "0\r\n\r\n") : true
        case .stall:
            _ = sleep(nanoseconds: .max / 2, isStopped: isStopped)
            return false
        case .drop:
            return false
        }
    }

    static func writeGenerated(_ count: Int, to fd: Int32) -> Bool {
        let block = (0..<(64 * 1024)).map { UInt8(truncatingIfNeeded: $0) }
        var sent = 0
        while sent < count {
            let size = min(block.count, count - sent)
            guard Socket.sendAll(fd, block[..<size]) else { return false }
            sent += size
        }
        return true
    }
}
