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
        guard let header = request.header("Range"), request.header("If-Range").map({ $0 == etag }) ?? true,
            let range = byteRange(header, length: body.count)
        else { return whole }
        guard let range else {
            return TestServer.Response(status: 416, headers: [("Content-Range", "bytes */\(body.count)")])
        }
        return TestServer.Response(
            status: 206,
            headers: [
                ("ETag", etag), ("Accept-Ranges", "bytes"),
                ("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(body.count)"),
            ],
            body: body.subdata(in: range.lowerBound..<(range.upperBound + 1)))
    }

    /// The bytes one range of `header` asks for of `length`: `nil` when the header is not one byte
    /// range (the whole is sent), `.some(nil)` when none of its bytes exist (416).
    private static func byteRange(_ header: String, length: Int) -> ClosedRange<Int>?? {
        let spec = header.trimmingCharacters(in: .whitespaces)
        guard spec.lowercased().hasPrefix("bytes="), !spec.contains(",") else { return nil }
        let bounds = spec.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else { return nil }
        let first = bounds[0].isEmpty ? nil : Int(bounds[0])
        let last = bounds[1].isEmpty ? nil : Int(bounds[1])
        switch (first, last) {
        case (let first?, _) where bounds[1].isEmpty || last != nil:
            guard last.map({ $0 >= first }) ?? true else { return nil }
            guard first < length else { return .some(nil) }
            return .some(first...min(last ?? (length - 1), length - 1))
        case (nil, let suffix?) where bounds[0].isEmpty:
            guard suffix > 0, length > 0 else { return .some(nil) }
            return .some(max(0, length - suffix)...(length - 1))
        default:
            return nil
        }
    }
}
