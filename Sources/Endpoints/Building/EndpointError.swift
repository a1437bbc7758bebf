/// Why a request could not be built. Nothing was sent.
///
/// Every case's description is one sentence that says what to fix. Header values never appear
/// in it, since they often hold credentials.
public enum EndpointError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server has no base URL for the requested environment.
    case missingBaseURL(server: String, environment: String)
    /// A path value read from the components was `nil`. ``PathTemplate`` no longer throws it: as in
    /// Endpoints 0.4, a `nil` value's segment is left out of the path.
    case missingPathValue(String)
    /// A path value was empty, `.` or `..`, which would change the path's shape.
    case invalidPathValue(String, value: String)
    /// The method is not a valid HTTP token.
    case invalidMethod(String)
    /// A header name is not a valid HTTP token.
    case invalidHeaderName(String)
    /// A header value contains CR, LF or NUL.
    case invalidHeaderValue(name: String)
    /// The pieces did not form a valid URL.
    case invalidURL(String)
    /// The request sets a `Content-Length` that is not the length of its body (its `httpBody`):
    /// the server would get a body cut short, or wait for bytes that never come.
    case conflictingFraming(header: String)
    /// The endpoint has both form parameters and a body; a request has one body.
    case conflictingBody
    /// The body encoder threw.
    case bodyEncodingFailed(UnderlyingError)
    /// The definition's timeout is zero, negative or not a number.
    case invalidTimeout(Double)
    /// An ``AdHocRequest``'s `Response` is not `Decodable`, `Data` or `Void`, and no `map` says how
    /// to make one; the associated value names the type.
    case unsupportedResponse(String)

    /// A sentence that says what went wrong and what to fix.
    public var description: String {
        switch self {
        case .missingBaseURL(let server, let environment):
            "\(server) has no base URL for the environment '\(environment)'; add it to baseUrls or request another environment."
        case .missingPathValue(let name):
            "The path value '\(name)' is nil; pass a value."
        case .invalidPathValue(let name, let value):
            "The path value '\(name)' is \(value.isEmpty ? "empty" : "'\(value)'"), which would change the shape of the path; pass a non-empty value other than '.' or '..'."
        case .invalidMethod(let method):
            "The method '\(method.debugDescription.dropFirst().dropLast())' is not a valid HTTP token; use letters, digits and !#$%&'*+-.^_`|~ only."
        case .invalidHeaderName(let name):
            "The header name '\(name.debugDescription.dropFirst().dropLast())' is not a valid HTTP token; use letters, digits and !#$%&'*+-.^_`|~ only."
        case .invalidHeaderValue(let name):
            "The value of the header '\(name)' contains CR, LF or NUL, which would split the request; remove those characters."
        case .conflictingFraming(let header):
            "The request's '\(header)' is not the length of its body, which would cut the body short or leave the server waiting; remove the header, the transport sets it."
        case .invalidURL(let text):
            // The query is left out: it may carry an API key.
            "'\(text.prefix { $0 != "?" })' is not a valid URL; check the server's base URL and any custom query encoding."
        case .conflictingBody:
            "The endpoint has both form parameters and a body; a request carries one body, so remove one of them."
        case .bodyEncodingFailed(let underlying):
            "The body could not be encoded (\(underlying)); check the body's Encodable conformance and the encoder."
        case .invalidTimeout(let timeout):
            "The timeout \(timeout) is not a positive number of seconds; pass a positive value, or nil for the session's."
        case .unsupportedResponse(let type):
            "The request's response type \(type) is not Decodable, Data or Void; make it Decodable, or map a Request<Data> to it."
        }
    }
}

/// An error wrapped so that the error holding it can still be compared: two are equal when their
/// descriptions are.
public struct UnderlyingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The original error.
    public let error: any Error

    /// Wraps `error`.
    init(_ error: any Error) { self.error = error }

    /// The original error's description.
    public var description: String { String(describing: error) }

    /// Compares descriptions.
    public static func == (lhs: UnderlyingError, rhs: UnderlyingError) -> Bool {
        lhs.description == rhs.description
    }
}
