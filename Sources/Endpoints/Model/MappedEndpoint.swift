import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Endpoint {
    /// An endpoint that sends the same request as this one and transforms its response.
    ///
    /// Reuse an endpoint where a caller needs something derived from its response, without a new
    /// type and without changing how it is sent, authenticated or mocked:
    ///
    /// ```swift
    /// let names = try await URLSession.shared.response(with: UsersEndpoint().map { $0.map(\.name) })
    /// ```
    ///
    /// The transform runs after the response decoded; if it throws, the caller gets
    /// `.responseParseError` with the raw body, as for a body that did not decode. Error responses
    /// are unchanged: the mapped endpoint has the same `TaskError`.
    public func map<NewResponse: Sendable>(
        _ transform: @escaping @Sendable (Response) throws -> NewResponse
    ) -> MappedEndpoint<Self, NewResponse> {
        MappedEndpoint(base: self, transform: transform)
    }
}

/// An endpoint whose response is another endpoint's, transformed. Made by ``Endpoint/map(_:)``.
///
/// Everything but the response comes from `Base`: definition, server, body, parameters, headers,
/// coders, authentication and middleware. Mocks are registered for the mapped type itself.
public struct MappedEndpoint<Base: Endpoint, Response: Sendable>: Endpoint {
    // `Server` and `ErrorResponse` are named here because no witness below mentions them; the other
    // associated types are inferred from the witnesses' `Base.…` types.
    /// `Base`'s server.
    public typealias Server = Base.Server
    /// `Base`'s error response.
    public typealias ErrorResponse = Base.ErrorResponse

    /// The endpoint whose request is sent.
    let base: Base
    private let transform: @Sendable (Base.Response) throws -> Response

    init(base: Base, transform: @escaping @Sendable (Base.Response) throws -> Response) {
        self.base = base
        self.transform = transform
    }

    /// `Base`'s definition.
    public static var definition: Definition<MappedEndpoint> { Definition(reusing: Base.definition) }

    /// `Base`'s body.
    public var body: Base.Body { base.body }
    /// `Base`'s path values.
    public var pathComponents: Base.PathComponents { base.pathComponents }
    /// `Base`'s parameter values.
    public var parameterComponents: Base.ParameterComponents { base.parameterComponents }
    /// `Base`'s header values.
    public var headerComponents: Base.HeaderComponents { base.headerComponents }
    /// `Base`'s body encoder.
    public static var bodyEncoder: Base.BodyEncoder { Base.bodyEncoder }
    /// `Base`'s error decoder.
    public static var errorDecoder: Base.ErrorDecoder { Base.errorDecoder }
    /// `Base`'s query encoding.
    public static var queryEncodingStrategy: QueryEncodingStrategy { Base.queryEncodingStrategy }
    /// `Base`'s authentication method.
    public static var auth: Base.Auth { Base.auth }
    /// `Base`'s middleware.
    public static var middleware: [any Middleware] { Base.middleware }

    /// Decodes the body as `Base` does, then applies the transform.
    public func decodeResponse(_ data: Data, response: HTTPURLResponse) throws -> Response {
        try transform(base.decodeResponse(data, response: response))
    }
}
