import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A typed description of one HTTP endpoint: where it lives, what it sends, and what comes back.
///
/// Only ``Server``, ``Response`` and ``definition`` are required; everything else has a default.
///
/// ```swift
/// struct MyEndpoint: Endpoint {
///     typealias Server = ApiServer
///
///     static let definition: Definition<MyEndpoint> = Definition(
///         method: .get,
///         path: "path/to/resource"
///     )
///
///     struct Response: Decodable {
///         let resourceId: String
///         let resourceName: String
///     }
/// }
///
/// let response = try await URLSession.shared.response(with: MyEndpoint())
/// ```
///
/// `Response` may be any `Decodable` type (decoded with ``responseDecoder``; an optional one is
/// `nil` for an empty body; a `String` is the text of a body that is not a JSON string), `Data`
/// (the raw body) or `Void` (the body is ignored). Other types implement ``decodeResponse(_:response:)``, and ``map(_:)`` transforms any of them.
public protocol Endpoint: Sendable {
    /// The server this endpoint belongs to.
    associatedtype Server: ServerDefinition
    /// What a successful (2xx) response decodes to.
    associatedtype Response: Sendable
    /// What a non-2xx response body decodes to; ``EmptyCodable`` when there is nothing to read.
    associatedtype ErrorResponse: Decodable & Sendable = EmptyCodable
    /// The request body, encoded with ``bodyEncoder``; ``EmptyCodable`` sends no body.
    associatedtype Body: Encodable & Sendable = EmptyCodable
    /// The values the path template reads, e.g. `struct PathComponents { let userId: Int }`.
    associatedtype PathComponents: Sendable = Void
    /// The values the query and form parameters read.
    associatedtype ParameterComponents: Sendable = Void
    /// The values the headers read.
    associatedtype HeaderComponents: Sendable = Void
    /// Encodes ``Body``.
    associatedtype BodyEncoder: EncoderType = JSONEncoder
    /// Decodes the endpoint's `Response`.
    associatedtype ResponseDecoder: DecoderType = JSONDecoder
    /// Decodes ``ErrorResponse``.
    associatedtype ErrorDecoder: DecoderType = JSONDecoder
    /// The authentication this endpoint uses; its server's unless it declares its own.
    associatedtype Auth: AuthenticationMethod = Server.Auth

    /// How the parts of the endpoint fit into a request. Declare it as a `static let`.
    static var definition: Definition<Self> { get }

    /// The body to send.
    var body: Body { get }
    /// The values for the path template.
    var pathComponents: PathComponents { get }
    /// The values for the query and form parameters.
    var parameterComponents: ParameterComponents { get }
    /// The values for the headers.
    var headerComponents: HeaderComponents { get }

    /// The encoder for ``body``. The default `JSONEncoder` is shared, not created per request.
    static var bodyEncoder: BodyEncoder { get }
    /// The decoder for ``Response``.
    static var responseDecoder: ResponseDecoder { get }
    /// The decoder for ``ErrorResponse``.
    static var errorDecoder: ErrorDecoder { get }
    /// How query items are encoded; ``QueryEncodingStrategy/default`` unless overridden.
    static var queryEncodingStrategy: QueryEncodingStrategy { get }

    /// The authentication method for this endpoint. Defaults to the server's; override it to opt
    /// out (`static var auth: NoAuth { NoAuth() }`) or to use another scheme.
    static var auth: Auth { get }

    /// The middleware this endpoint's requests go through, outermost first. Defaults to the
    /// server's; return `Server.middleware + [extra]` to extend it, or another list to replace it.
    static var middleware: [any Middleware] { get }

    /// Turns a 2xx response body into ``Response``. Defaults exist for `Decodable`, `Data` and `Void`;
    /// ``map(_:)`` builds on it.
    func decodeResponse(_ data: Data, response: HTTPURLResponse) throws -> Response
}

extension Endpoint where Body == EmptyCodable {
    /// No body.
    public var body: Body { EmptyCodable() }
}

extension Endpoint where PathComponents == Void {
    /// No path values.
    public var pathComponents: PathComponents { () }
}

extension Endpoint where ParameterComponents == Void {
    /// No parameter values.
    public var parameterComponents: ParameterComponents { () }
}

extension Endpoint where HeaderComponents == Void {
    /// No header values.
    public var headerComponents: HeaderComponents { () }
}

extension Endpoint where BodyEncoder == JSONEncoder {
    /// A shared `JSONEncoder` with default settings.
    public static var bodyEncoder: BodyEncoder { SharedCoders.jsonEncoder }
}

extension Endpoint where ResponseDecoder == JSONDecoder {
    /// A shared `JSONDecoder` with default settings.
    public static var responseDecoder: ResponseDecoder { SharedCoders.jsonDecoder }
}

extension Endpoint where ErrorDecoder == JSONDecoder {
    /// A shared `JSONDecoder` with default settings.
    public static var errorDecoder: ErrorDecoder { SharedCoders.jsonDecoder }
}

extension Endpoint {
    /// ``QueryEncodingStrategy/default``.
    public static var queryEncodingStrategy: QueryEncodingStrategy { .default }

    /// The server's middleware.
    public static var middleware: [any Middleware] { Server.middleware }

    /// The error type every way of sending this endpoint throws.
    public typealias TaskError = EndpointTaskError<ErrorResponse>
}

extension Endpoint where Auth == Server.Auth {
    /// The server's authentication method.
    public static var auth: Auth { Server.auth }
}

extension Endpoint where Response: Decodable {
    /// Decodes the body with ``responseDecoder``; an empty body is `nil` when `Response` is optional,
    /// and a `String` is the text of a body that is not a JSON string.
    public func decodeResponse(_ data: Data, response: HTTPURLResponse) throws -> Response {
        try Self.responseDecoder.decodeResponseBody(Response.self, from: data)
    }
}

extension Endpoint where Response == Data {
    /// The body as received.
    public func decodeResponse(_ data: Data, response: HTTPURLResponse) throws -> Response { data }
}

extension Endpoint where Response == Void {
    /// Ignores the body.
    public func decodeResponse(_ data: Data, response: HTTPURLResponse) throws -> Response { () }
}
