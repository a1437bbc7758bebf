import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request as a value, with the type its response decodes to: an ``AdHocRequest`` whose error
/// responses are not decoded (``EmptyCodable``), as an `Endpoint`'s are by default.
///
/// ```swift
/// let users = try await URLSession.shared.response(for: Request<[User]>.get("https://api.example.com/users"))
/// ```
///
/// See <doc:AdHocRequests>.
public typealias Request<Response: Sendable> = AdHocRequest<Response, EmptyCodable>

/// A request as a value: where it goes, what it sends, what its response decodes to, and what its
/// error responses decode to. The lighter way to call an API than declaring an ``Endpoint`` type;
/// both are built, authenticated and sent by the same pipeline.
///
/// Most code spells it ``Request`` (no typed error body) and makes one with a constructor named for
/// its method:
///
/// ```swift
/// extension Request where Response == Age {
///     static func estimatedAge(forName name: String) -> Self {
///         .get("https://api.agify.io/") {
///             URLQueryItem(name: "name", value: name)
///         }
///     }
/// }
///
/// let age = try await URLSession.shared.response(for: .estimatedAge(forName: "Zaid"))
/// ```
///
/// - `Response` decodes from the body with the request's ``decoder(_:)`` when it is `Decodable`; a
///   `Data` response is the body as received, a `Void` response ignores it. ``map(_:)`` turns any of
///   them into another type.
/// - `ErrorResponse` is what a non-2xx body decodes to, set with ``errorBody(_:decoder:)``; the
///   error thrown is ``EndpointTaskError``, as for an endpoint.
///
/// Building applies the rules an ``Endpoint`` follows: path values and query items are
/// percent-encoded, a method or header name that is not a token, a header value with CR, LF or NUL,
/// or a body and form fields together fail with an ``EndpointError`` before anything is sent.
public struct AdHocRequest<Response: Sendable, ErrorResponse: Decodable & Sendable>: Sendable {
    /// Turns a 2xx body into `Response`, with the request's decoder.
    typealias Decode = @Sendable (Data, HTTPURLResponse, any DecoderType) throws -> Response

    var parts: AdHocRequestParts
    /// The decoder for `Response`, when it is `Decodable`.
    var responseDecoder: any DecoderType & Sendable
    /// The decoder for `ErrorResponse`.
    var errorDecoder: any DecoderType & Sendable
    /// How a 2xx body becomes `Response`.
    let decoding: Decoding

    /// How a 2xx body becomes `Response`: by the standard rules for `Response` (found when the
    /// request is sent, not each time one is made), or by a function `map(_:)` made.
    enum Decoding: Sendable {
        case standard
        /// `nil` when the request mapped had no way to decode its response.
        case mapped(Decode?)
    }

    init(
        parts: AdHocRequestParts, responseDecoder: any DecoderType & Sendable, errorDecoder: any DecoderType & Sendable,
        decoding: Decoding
    ) {
        self.parts = parts
        self.responseDecoder = responseDecoder
        self.errorDecoder = errorDecoder
        self.decoding = decoding
    }

    /// A request decoded by the standard rules, its parts made here: parts made by the caller and
    /// passed in were copied once more.
    init(
        method: Method,
        target: AdHocRequestParts.Target,
        content: ContentBuilder<Void, Void>.Component,
        body: (any Encodable & Sendable)?,
        bodyEncoder: (any EncoderType & Sendable)?
    ) {
        self.parts = AdHocRequestParts(
            method: method, target: target, content: content, body: body, bodyEncoder: bodyEncoder)
        self.responseDecoder = SharedCoders.jsonDecoder
        self.errorDecoder = SharedCoders.jsonDecoder
        self.decoding = .standard
    }

    /// Turns a 2xx body into `Response`; `nil` when `Response` is not `Decodable`, `Data` or
    /// `Void` and nothing mapped it.
    var decode: Decode? {
        switch decoding {
        case .standard: Self.standardDecode()
        case .mapped(let decode): decode
        }
    }

    /// The response-decoding seam: one generic path for `Data`, `Void` and `Decodable` responses.
    private static func standardDecode() -> Decode? {
        if Response.self == Data.self {
            return { data, _, _ in try Self.cast(data) }
        }
        if Response.self == Void.self {
            return { _, _, _ in try Self.cast(()) }
        }
        if let type = Response.self as? any (Decodable & Sendable).Type {
            return decodeFunction(for: type)
        }
        return nil
    }

    private static func decodeFunction<Body: Decodable & Sendable>(for type: Body.Type) -> Decode {
        { data, _, decoder in try Self.cast(decoder.decodeResponseBody(Body.self, from: data)) }
    }

    private static func cast(_ value: Any) throws -> Response {
        guard let value = value as? Response else { throw EndpointError.unsupportedResponse("\(Response.self)") }
        return value
    }

    /// The HTTP method.
    var method: Method { parts.shape.method }

    /// A name for this request in logs, ``RequestContext/endpointName`` and mocks: the one given
    /// with ``named(_:)``, or the method and the URL or path as written, e.g. `GET users/{1}`.
    package var name: String { parts.name ?? "\(method.rawValue) \(parts.target)" }
}

/// What an ``AdHocRequest`` sends, apart from how its response decodes.
struct AdHocRequestParts: Sendable {
    enum Target: Sendable, CustomStringConvertible {
        case absolute(String)
        case relative(PathTemplate<Void>, RequestBase)

        var description: String {
            switch self {
            case .absolute(let url): String(url.prefix { $0 != "?" })
            case .relative(let path, _): path.description
            }
        }

        var base: RequestBase? {
            if case .relative(_, let base) = self { base } else { nil }
        }

        /// `target` as an absolute URL, or as a path on `base` when there is one.
        init(_ target: RequestTarget, on base: RequestBase?) {
            if let base {
                self = .relative(target.path, base)
            } else {
                self = .absolute(target.absoluteURL)
            }
        }
    }

    let target: Target
    let parameters: [Parameter<Void>]
    /// The base's headers, then the request's, in the order written.
    private(set) var headers: [HeaderEntry<Void>]
    let body: (any Encodable & Sendable)?
    let bodyEncoder: any EncoderType & Sendable
    /// Checked and split once, when the request is made.
    private(set) var shape: RequestShape<Void, Void>
    var queryEncoding: QueryEncodingStrategy = .default
    var acceptableStatusCodes: StatusCodes = .successful
    /// Whether redirects are followed (see ``AdHocRequest/followsRedirects(_:)``).
    var followsRedirects = true
    var auth: (any AuthenticationMethod)?
    var middleware: [any Middleware] = []
    var name: String?

    init(
        method: Method,
        target: Target,
        content: ContentBuilder<Void, Void>.Component,
        body: (any Encodable & Sendable)?,
        bodyEncoder: (any EncoderType & Sendable)?
    ) {
        let body = body is EmptyCodable ? nil : body
        let baseHeaders = target.base?.headers ?? []
        let headers = baseHeaders.isEmpty ? content.headers : baseHeaders + content.headers
        self.target = target
        self.parameters = content.parameters
        self.headers = headers
        self.body = body
        self.bodyEncoder = bodyEncoder ?? SharedCoders.jsonEncoder
        self.shape = RequestShape(
            method: method,
            parameters: content.parameters,
            headerList: headers,
            hasBody: body != nil,
            timeout: nil
        )
    }

    /// Adds `more` after the headers so far, sets the timeout, and checks them all again.
    mutating func reshape(adding more: [HeaderEntry<Void>] = [], timeout: Double??) {
        headers += more
        shape = RequestShape(
            method: shape.method,
            parameters: parameters,
            headerList: headers,
            hasBody: body != nil,
            timeout: timeout ?? shape.timeout
        )
    }
}
