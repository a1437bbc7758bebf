import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The message-length checks of RFC 9112 §6.3 that URLSession leaves out, applied to a response
/// the transport received completely.
///
/// Both platforms' URLSession accept a response whose `Content-Length` fields disagree (corelibs
/// reads as many bytes as the last one says) and one framed by both `Transfer-Encoding` and
/// `Content-Length`. Either may mean a response-splitting attempt, so the library refuses them
/// with `URLError.badServerResponse`. A body shorter than its `Content-Length` already fails in
/// URLSession, as a lost connection (see `URLError.partialTransfer(_:failingURL:underlying:)`);
/// the byte count is compared here too, and a short body is the same `.networkConnectionLost`
/// whatever the platform: the connection closed before the rest came, the message itself is not
/// malformed. A body longer than `Content-Length` cannot be seen: URLSession stops reading at the
/// declared length and drops the connection.
enum ResponseFraming {
    /// Whether a `Content-Encoding` value names a coding (`gzip`, `br`…): the body was decoded
    /// on its way here, so its `Content-Length`, or a range of it, counts other bytes.
    static func namesACoding(_ contentEncoding: String?) -> Bool {
        guard let coding = contentEncoding.map(CacheControl.trimmed) else { return false }
        return !coding.isEmpty && coding.lowercased() != "identity"
    }

    /// Why `response`, whose body was `bodyLength` bytes after any content decoding, is not a
    /// complete, validly framed message; `nil` when it is. The error is
    /// `URLError.badServerResponse` for ambiguous or invalid framing and
    /// `URLError.networkConnectionLost` for a body shorter than its `Content-Length`, with a
    /// description naming the problem, so it reaches callers as `.urlLoadError`.
    static func violation(of response: HTTPURLResponse, bodyLength: Int, requestMethod: String?) -> URLError? {
        violation(
            status: response.statusCode, url: response.url, bodyLength: bodyLength, requestMethod: requestMethod,
            field: response.value(forHTTPHeaderField:))
    }

    /// The same check of a response head given by its status, its URL and a lookup of its fields
    /// (any case, repeated fields joined with `, `): for a transport whose own head answers that
    /// faster than `HTTPURLResponse` does on Linux.
    static func violation(
        status: Int, url: URL?, bodyLength: Int, requestMethod: String?, field lookup: (String) -> String?
    ) -> URLError? {
        guard let field = lookup("Content-Length") else { return nil }
        let value: String
        if !field.isEmpty, field.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            value = field  // the usual single value, without splitting and trimming (costly on Linux)
        } else {
            // Repeated fields arrive joined with ", " (RFC 9110 §5.3).
            let values = field.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard Set(values).count == 1, let first = values.first else {
                return error("the response has Content-Length values that disagree (\(field))", url)
            }
            value = first
        }
        if lookup("Transfer-Encoding") != nil {
            return error("the response is framed by both Transfer-Encoding and Content-Length", url)
        }
        guard value.allSatisfy({ ("0"..."9").contains($0) }), let declared = Int(value) else {
            return error("the response's Content-Length is not a number (\(value))", url)
        }
        // No body by definition (RFC 9110 §6.4.1); the length describes what a GET would get.
        if requestMethod == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304 { return nil }
        guard bodyLength != declared else { return nil }
        // URLSession decodes gzip and the like; Content-Length counts the encoded bytes.
        if namesACoding(lookup("Content-Encoding")) { return nil }
        if bodyLength < declared {
            return URLError.partialTransfer(
                "\(bodyLength) of the \(declared) bytes its Content-Length declares", failingURL: url,
                underlying: nil)
        }
        return error("the response body has \(bodyLength) bytes but its Content-Length is \(declared)", url)
    }

    private static func error(_ reason: String, _ url: URL?) -> URLError {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: "The server's response is malformed: \(reason) (RFC 9112 §6.3)."
        ]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        return URLError(.badServerResponse, userInfo: info)
    }
}
