import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every way sending an endpoint can fail, typed by the endpoint's ``Endpoint/ErrorResponse``.
///
/// Each `Endpoint` has `typealias TaskError = EndpointTaskError<ErrorResponse>`, and every API that
/// sends throws it, so one `catch` covers everything:
///
/// ```swift
/// do {
///     let profile = try await URLSession.shared.response(with: ProfileEndpoint())
/// } catch {
///     switch error {
///     case .errorResponse(let http, let body): print(http.statusCode, body.message)
///     case .authenticationError(.refreshFailed): await logOut()
///     case .cancelled: break
///     default: print(error)
///     }
/// }
/// ```
///
/// ``stage`` says which step of sending failed, whatever the case (see <doc:Errors>):
///
/// ```swift
/// catch {
///     metrics.increment("request.failed.\(error.stage)")   // "transport", "validation", …
/// }
/// ```
///
/// Descriptions read as sentences that name the failing step and never print header values.
public enum EndpointTaskError<ErrorResponseType: Sendable>: Error, CustomStringConvertible {
    /// The request could not be built; nothing was sent.
    case endpointError(EndpointError)
    /// Credentials could not be applied or renewed.
    case authenticationError(AuthenticationError)
    /// The transport failed: connection refused, timed out, TLS, too many redirects…
    case urlLoadError(URLError)
    /// The device is offline (`URLError.notConnectedToInternet`).
    case internetConnectionOffline
    /// The request was cancelled (the Swift task, the Combine subscription, or the data task).
    case cancelled
    /// The server answered with a non-2xx status and a body that decoded as `ErrorResponseType`.
    case errorResponse(httpResponse: HTTPURLResponse, response: ErrorResponseType)
    /// The server answered with a non-2xx status and a body that did not decode as `ErrorResponseType`.
    case errorResponseParseError(httpResponse: HTTPURLResponse, data: Data, error: DecodingFailure)
    /// The server answered 2xx but the body did not decode as the endpoint's `Response`.
    case responseParseError(httpResponse: HTTPURLResponse, data: Data, error: DecodingFailure)
    /// A middleware or custom transport threw an error of its own.
    case middlewareError(any Error)
    /// A streamed body failed for a reason of its own, after the request was sent: an upload's
    /// `AsyncSequence` threw, a custom transport's response body threw its own error mid-way, or a
    /// typed mock answered a byte or event stream with a value that is not `Data`. A connection
    /// lost mid-stream stays ``urlLoadError(_:)`` and a value that does not decode stays
    /// ``responseParseError(httpResponse:data:error:)``; their ``stage`` says which.
    case streamError(any Error)
    /// The next page's link pointed to another origin (scheme, host or port) than the first
    /// page's, so it was not followed: the request would have carried the endpoint's credentials
    /// there (see ``PaginatedEndpoint``). The pages end here. `target` is the link without its
    /// query, which may carry a key.
    case pageLinkError(target: String)

    /// The typed error for a failure thrown by a transport, a middleware or test support, mapped
    /// the way the pipeline maps it.
    ///
    /// An `EndpointTaskError` of this type is kept as it is; `CancellationError` and
    /// `URLError.cancelled` become ``cancelled``; `URLError.notConnectedToInternet` becomes
    /// ``internetConnectionOffline``; any other `URLError` becomes ``urlLoadError(_:)``, and so does
    /// an `NSError` in `NSURLErrorDomain` (what a `URLProtocol` reports, which Linux does not bridge
    /// to `URLError`); an ``EndpointError`` (a header refused before sending) becomes
    /// ``endpointError(_:)``; an ``AuthenticationError`` becomes ``authenticationError(_:)``;
    /// anything else ``middlewareError(_:)``.
    ///
    /// ```swift
    /// let error = MyEndpoint.TaskError(URLError(.timedOut))   // .urlLoadError(URLError(.timedOut))
    /// ```
    public init(_ error: any Error) {
        switch error {
        case let error as EndpointTaskError:
            self = error
        case is CancellationError:
            self = .cancelled
        case let error as URLError:
            self.init(urlError: error)
        case let error as EndpointError:
            self = .endpointError(error)
        case let error as AuthenticationError:
            self = .authenticationError(error)
        case let error as WebSocketError:
            // A transport that cannot upgrade a WebSocket handshake says so.
            self = .streamError(error)
        default:
            if let error = Self.urlError(bridging: error) {
                self.init(urlError: error)
            } else {
                self = .middlewareError(error)
            }
        }
    }

    private init(urlError error: URLError) {
        switch error.code {
        case .cancelled: self = .cancelled
        case .notConnectedToInternet: self = .internetConnectionOffline
        default: self = .urlLoadError(error)
        }
    }

    /// An `NSError` in `NSURLErrorDomain` as the `URLError` it is; Apple platforms bridge it
    /// themselves, Linux does not.
    private static func urlError(bridging error: any Error) -> URLError? {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else { return nil }
        #if canImport(FoundationNetworking)
            guard let code = URLError.Code(rawValue: nsError.code) else { return nil }
        #else
            let code = URLError.Code(rawValue: nsError.code)
        #endif
        return URLError(code, userInfo: nsError.userInfo)
    }

    /// The HTTP response, when the server answered.
    public var httpResponse: HTTPURLResponse? {
        switch self {
        case .errorResponse(let response, _), .errorResponseParseError(let response, _, _),
            .responseParseError(let response, _, _):
            response
        default:
            nil
        }
    }

    /// The status code, when the server answered.
    public var statusCode: Int? { httpResponse?.statusCode }

    /// The raw response body, whenever the server answered: for ``errorResponse(httpResponse:response:)``
    /// too, so a body that decoded can still be logged or decoded again as something else.
    public var responseData: Data? {
        switch self {
        case .errorResponseParseError(_, let data, _), .responseParseError(_, let data, _): data
        case .errorResponse(let response, _): (response as? ErrorHTTPResponse)?.body
        default: nil
        }
    }

    /// A sentence that says what went wrong.
    public var description: String {
        switch self {
        case .endpointError(let error):
            "The request could not be built: \(error)"
        case .authenticationError(let error):
            "Authentication failed: \(error)"
        case .urlLoadError(let error):
            "The request failed to load (URLError \(error.code.rawValue)): \(error.localizedDescription)"
        case .internetConnectionOffline:
            "The request failed because the device is offline."
        case .cancelled:
            "The request was cancelled."
        case .errorResponse(let response, let body):
            "The server answered with status \(response.statusCode): \(body)"
        case .errorResponseParseError(let response, let data, let error):
            "The server answered with status \(response.statusCode) and a \(data.count)-byte body that did not decode as \(ErrorResponseType.self): \(error)"
        case .responseParseError(let response, let data, let error) where error.isStreamedValue:
            "The server answered with status \(response.statusCode) but a \(data.count)-byte value of the stream did not decode: \(error)"
        case .responseParseError(let response, let data, let error):
            "The server answered with status \(response.statusCode) but the \(data.count)-byte body did not decode: \(error)"
        case .middlewareError(let error):
            "A middleware failed: \(error)"
        case .streamError(let error):
            "The stream failed: \(error)"
        case .pageLinkError(let target):
            "The next page was not fetched: its link points to another origin (\(target)) and was not followed, to keep credentials from it."
        }
    }
}

extension EndpointTaskError: Sendable where ErrorResponseType: Sendable {}

extension EndpointTaskError: LocalizedError {
    /// ``description``, so that `localizedDescription` reads as the same sentence.
    public var errorDescription: String? { description }
}

/// A decoding error with where it happened, ready to print.
public struct DecodingFailure: Error, Sendable, CustomStringConvertible {
    /// The decoder's error.
    public let underlying: any Error
    /// The coding path to the failing value, e.g. `items[2].name`; empty at the top level.
    public let codingPath: String
    /// Whether the value was one of a stream's (a JSON line, an event's data) rather than a whole
    /// body: what makes ``EndpointTaskError/stage`` of a parse error ``RequestStage/stream``.
    var isStreamedValue = false

    /// Wraps a decoder's error.
    init(_ error: any Error) {
        underlying = error
        if let error = error as? DecodingError {
            let context: DecodingError.Context? =
                switch error {
                case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                    context
                case .keyNotFound(let key, let context):
                    DecodingError.Context(
                        codingPath: context.codingPath + [key],
                        debugDescription: context.debugDescription
                    )
                @unknown default:
                    nil
                }
            codingPath = context.map { DecodingFailure.render($0.codingPath) } ?? ""
        } else {
            codingPath = ""
        }
    }

    static func render(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    /// The failure and its coding path.
    public var description: String {
        let what: String
        if let error = underlying as? DecodingError {
            switch error {
            case .typeMismatch(let type, let context): what = "expected \(type): \(context.debugDescription)"
            case .valueNotFound(let type, let context): what = "missing \(type): \(context.debugDescription)"
            case .keyNotFound(let key, _): what = "missing key '\(key.stringValue)'"
            case .dataCorrupted(let context): what = context.debugDescription
            @unknown default: what = String(describing: error)
            }
        } else {
            what = String(describing: underlying)
        }
        return codingPath.isEmpty ? what : "at \(codingPath): \(what)"
    }
}
