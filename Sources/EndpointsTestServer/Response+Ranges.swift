import Foundation

extension TestServer.Response {
    /// `body` as a static file server serves it to `request`: tagged `etag`, and a single byte
    /// range (`Range: bytes=first-last`, `bytes=first-` or `bytes=-suffix`) answered with that
    /// part (206 with `Content-Range`) when the request's `If-Range` is absent or names `etag`,
    /// the whole (200) when it names something else, and 416 for a range past the end (RFC 9110
    /// §14). Any other `Range` (several ranges, another unit) is answered with the whole. For
    /// testing resumable downloads and range requests:
    ///
    /// ```swift
    /// let installer = Data(count: 1 << 20)
    /// server.route("/installer.bin") { request in
    ///     .file(installer, etag: "\"v1\"", for: request)
    /// }
    /// ```
    public static func file(_ body: Data, etag: String, for request: TestServer.Request) -> TestServer.Response {
        let whole = TestServer.Response(headers: [("ETag", etag), ("Accept-Ranges", "bytes")], body: body)
        guard let header = request.header("Range"), request.header("If-Range").map({ $0 == etag }) ?? true else {
            return whole
        }
        switch ByteRange(header, length: body.count) {
        case .whole:
            return whole
        case .unsatisfiable:
            return TestServer.Response(status: 416, headers: [("Content-Range", "bytes */\(body.count)")])
        case .part(let range):
            return TestServer.Response(
                status: 206,
                headers: [
                    ("ETag", etag), ("Accept-Ranges", "bytes"),
                    ("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(body.count)"),
                ],
                body: body.subdata(in: range.lowerBound..<(range.upperBound + 1)))
        }
    }
}

/// What a `Range` header asks of a body of `length` bytes: one part of it, none of its bytes (a
/// range past the end), or the whole (not one byte range: several, another unit, malformed).
private enum ByteRange {
    case whole
    case unsatisfiable
    case part(ClosedRange<Int>)

    init(_ header: String, length: Int) {
        let spec = header.trimmingCharacters(in: .whitespaces)
        self = .whole
        guard spec.lowercased().hasPrefix("bytes="), !spec.contains(",") else { return }
        let bounds = spec.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else { return }
        if bounds[0].isEmpty {
            // The last `suffix` bytes.
            guard let suffix = Int(bounds[1]) else { return }
            self = suffix > 0 && length > 0 ? .part(max(0, length - suffix)...(length - 1)) : .unsatisfiable
            return
        }
        guard let first = Int(bounds[0]) else { return }
        let last = bounds[1].isEmpty ? Int.max : Int(bounds[1])
        guard let last, last >= first else { return }
        self = first < length ? .part(first...min(last, length - 1)) : .unsatisfiable
    }
}
