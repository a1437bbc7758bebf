import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response body cut off part-way, the same error on every platform and every path (buffered,
/// streamed, download, upload).
///
/// Apple platforms report a connection that closes before the body is complete as
/// `URLError.networkConnectionLost` (-1005). corelibs on Linux does not map curl's
/// `CURLE_PARTIAL_FILE` and reports it as `URLError.unknown` (-1), with curl's text for a
/// description ("transfer closed with 990 bytes remaining to read" under a `Content-Length`,
/// "transfer closed with outstanding read data remaining" for a chunked body) and an `NSError` of
/// the same code and text under `NSUnderlyingErrorKey`. Code that matches `.networkConnectionLost`
/// would miss it, and ``RetryMiddleware`` never retries `.unknown`, so the transports report it as
/// ``partialTransfer(_:failingURL:underlying:)``.
extension URLError {
    /// The error for a response body that stopped part-way because the connection closed:
    /// `.networkConnectionLost`, with a sentence naming `detail` for a description, the failing URL,
    /// and the error URLSession reported, if any, under `NSUnderlyingErrorKey`.
    static func partialTransfer(_ detail: String, failingURL: URL?, underlying: (any Error)?) -> URLError {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey:
                "The network connection was lost before the whole response body arrived (\(detail))."
        ]
        if let failingURL { info[NSURLErrorFailingURLErrorKey] = failingURL }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return URLError(.networkConnectionLost, userInfo: info)
    }

    /// `error` as ``partialTransfer(_:failingURL:underlying:)`` when it is corelibs' report of a
    /// body cut off part-way; any other error, and every error on Apple platforms, unchanged.
    static func normalizingPartialTransfer(_ error: any Error) -> any Error {
        #if canImport(FoundationNetworking)
            let nsError = error as NSError
            guard nsError.domain == NSURLErrorDomain, nsError.code == URLError.Code.unknown.rawValue,
                let text = curlPartialFileText(of: nsError)
            else { return error }
            return partialTransfer(
                "curl: \(text)", failingURL: nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL, underlying: error)
        #else
            return error
        #endif
    }

    #if canImport(FoundationNetworking)
        /// curl's text for `CURLE_PARTIAL_FILE` in `error` or in its underlying error, if that is
        /// what it says; `nil` for any other `-1` (a TLS failure, say), which stays as it is.
        private static func curlPartialFileText(of error: NSError) -> String? {
            let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
            let texts = [error, underlying].compactMap { $0?.userInfo[NSLocalizedDescriptionKey] as? String }
            return texts.first(where: isCurlPartialFile)
        }

        /// Whether `text` is one of the messages curl gives `CURLE_PARTIAL_FILE` for an HTTP body:
        /// the error buffer's "transfer closed with N bytes remaining to read" and "transfer closed
        /// with outstanding read data remaining" (curl 7 and 8), "end of response with N bytes
        /// missing" (curl 8.6 on), or `curl_easy_strerror`'s "Transferred a partial file", which
        /// corelibs uses when the buffer is empty.
        static func isCurlPartialFile(_ text: String) -> Bool {
            text == "transfer closed with outstanding read data remaining"
                || text == "Transferred a partial file"
                || isCount(text, between: "transfer closed with ", and: " bytes remaining to read")
                || isCount(text, between: "end of response with ", and: " bytes missing")
        }

        private static func isCount(_ text: String, between prefix: String, and suffix: String) -> Bool {
            guard text.hasPrefix(prefix), text.hasSuffix(suffix), text.count > prefix.count + suffix.count else {
                return false
            }
            return text.dropFirst(prefix.count).dropLast(suffix.count).allSatisfy { ("0"..."9").contains($0) }
        }
    #endif
}
