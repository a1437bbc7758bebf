import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointTaskError: CustomReflectable {
    /// What `dump(error)`, a debugger and reflection-based reporters see: the case, and of a
    /// response its status and URL, never its header fields or its body.
    ///
    /// A response's headers may hold a session (`Set-Cookie`), its URL a user and password or a key
    /// in its query, and a `URLError` the URL it failed on: the URLs are shown as
    /// ``Redaction/standard`` hides them (`https://<redacted>@host/a?token=<redacted>`), the body
    /// by its size. Read ``responseData`` or the response itself when you need them.
    ///
    /// ```swift
    /// dump(error)
    /// // ▿ EndpointTaskError<APIError>
    /// //   ▿ errorResponse: (3 elements)
    /// //     - status: 401
    /// //     - url: "https://<redacted>@api.example.com/me?token=<redacted>"
    /// //     ▿ response: APIError …
    /// ```
    public var customMirror: Mirror {
        func url(_ url: URL?) -> String { url.map(Redaction.standard.redactedURL) ?? "" }
        let child: (label: String, value: Any)? =
            switch self {
            case .endpointError(let error): ("endpointError", error)
            case .authenticationError(let error): ("authenticationError", error)
            case .urlLoadError(let error):
                ("urlLoadError", (code: error.code.rawValue, url: url(error.failingURL), description: description))
            case .internetConnectionOffline, .cancelled: nil
            case .errorResponse(let response, let body):
                ("errorResponse", (status: response.statusCode, url: url(response.url), response: body))
            case .errorResponseParseError(let response, let data, let error):
                (
                    "errorResponseParseError",
                    (status: response.statusCode, url: url(response.url), bodyBytes: data.count, error: error)
                )
            case .responseParseError(let response, let data, let error):
                (
                    "responseParseError",
                    (status: response.statusCode, url: url(response.url), bodyBytes: data.count, error: error)
                )
            case .middlewareError(let error): ("middlewareError", error)
            case .streamError(let error): ("streamError", error)
            case .pageLinkError(let target): ("pageLinkError", target)
            }
        guard let child else { return Mirror(self, children: [:], displayStyle: .enum) }
        return Mirror(self, children: [child], displayStyle: .enum)
    }
}

extension TypedResponse: CustomReflectable {
    /// What `dump(_:)` and reflection see: the value, the response's status and its URL as
    /// ``Redaction/standard`` hides it, not the response's header fields (a `Set-Cookie` holds a
    /// session). Dump ``httpResponse`` itself to see them.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "value": value, "status": httpResponse.statusCode,
                "url": httpResponse.url.map(Redaction.standard.redactedURL) ?? "",
            ],
            displayStyle: .struct)
    }
}
