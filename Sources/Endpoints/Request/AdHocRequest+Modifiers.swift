import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AdHocRequest {
    /// The same request, its response transformed; the transform may throw.
    ///
    /// ```swift
    /// let names: Request<[String]> = Request<[User]>.get("users", on: Api.base).map { $0.map(\.name) }
    /// let image = Request<Data>.get(RequestTarget(avatarURL)).map { data in
    ///     guard let image = Avatar(data) else { throw AvatarError.unreadable }
    ///     return image
    /// }
    /// ```
    ///
    /// The transform runs after the body decoded; if it throws, the caller gets
    /// `.responseParseError` with the raw body, as for a body that did not decode. Error responses
    /// are unchanged.
    public func map<NewResponse: Sendable>(
        _ transform: @escaping @Sendable (Response) throws -> NewResponse
    ) -> AdHocRequest<NewResponse, ErrorResponse> {
        var mapped: AdHocRequest<NewResponse, ErrorResponse>.Decode?
        if let decode {
            mapped = { data, response, decoder in try transform(decode(data, response, decoder)) }
        }
        return AdHocRequest<NewResponse, ErrorResponse>(
            parts: parts,
            responseDecoder: responseDecoder,
            errorDecoder: errorDecoder,
            decoding: .mapped(mapped)
        )
    }

    /// The same request, its non-2xx bodies decoded as `type`: the caller catches
    /// `.errorResponse(httpResponse:response:)` with an `ErrorBody`, or
    /// `.errorResponseParseError` with the raw body when it does not decode.
    ///
    /// ```swift
    /// let request = Request<User>.get("users/42", on: Api.base).errorBody(APIError.self)
    /// ```
    /// - Parameters:
    ///   - type: The error body type.
    ///   - decoder: Its decoder; a shared `JSONDecoder` when `nil`.
    public func errorBody<ErrorBody: Decodable & Sendable>(
        _ type: ErrorBody.Type,
        decoder: (any DecoderType & Sendable)? = nil
    ) -> AdHocRequest<Response, ErrorBody> {
        let decoding: AdHocRequest<Response, ErrorBody>.Decoding =
            switch decoding {
            case .standard: .standard
            case .mapped(let decode): .mapped(decode)
            }
        return AdHocRequest<Response, ErrorBody>(
            parts: parts,
            responseDecoder: responseDecoder,
            errorDecoder: decoder ?? SharedCoders.jsonDecoder,
            decoding: decoding
        )
    }

    /// The same request, its response decoded with `decoder` instead of a shared `JSONDecoder`.
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase
    /// let request = Request<[User]>.get("users", on: Api.base).decoder(decoder)
    /// ```
    ///
    /// It applies to a mapped request too: the decoder reads the body, then the transforms run.
    public func decoder(_ decoder: any DecoderType & Sendable) -> Self {
        var copy = self
        copy.responseDecoder = decoder
        return copy
    }

    /// The same request with one more header, checked as a definition's headers are; it replaces a
    /// header of the same name. A `nil` value leaves the header out.
    ///
    /// ```swift
    /// Request<Age>.estimatedAge(forName: "Zaid").header("Accept-Language", "en")
    /// ```
    public func header<Value: ParameterRepresentable>(_ name: Header, _ value: Value) -> Self {
        var copy = self
        copy.parts.reshape(adding: [name.value(value)], timeout: nil)
        return copy
    }

    /// The same request, authenticated with `auth` instead of its base's method.
    ///
    /// ```swift
    /// Request<Profile>.get("me", on: Api.base).auth(session.auth)
    /// ```
    public func auth(_ auth: any AuthenticationMethod) -> Self {
        var copy = self
        copy.parts.auth = auth
        return copy
    }

    /// The same request, also going through `middleware`, inside its base's middleware.
    ///
    /// ```swift
    /// Request<[User]>.get("users", on: Api.base).middleware([LoggingMiddleware(level: .verbose)])
    /// ```
    public func middleware(_ middleware: [any Middleware]) -> Self {
        var copy = self
        copy.parts.middleware += middleware
        return copy
    }

    /// The same request with a timeout in seconds (`URLRequest.timeoutInterval`), as a definition's
    /// `timeout`; `nil` keeps the session's. A timeout that is not positive fails the request with
    /// ``EndpointError/invalidTimeout(_:)`` before anything is sent.
    ///
    /// ```swift
    /// Request<Report>.get("reports/latest", on: Api.base).timeout(2.5)
    /// ```
    public func timeout(_ seconds: Double?) -> Self {
        var copy = self
        copy.parts.reshape(timeout: .some(seconds))
        return copy
    }

    /// The same request, accepting `codes` as successful responses (2xx unless set); any other
    /// status is decoded as `ErrorResponse`.
    ///
    /// ```swift
    /// Request<Data>.get("avatar", on: Api.base).header("If-None-Match", etag).acceptableStatusCodes(.successful + [304])
    /// ```
    public func acceptableStatusCodes(_ codes: StatusCodes) -> Self {
        var copy = self
        copy.parts.acceptableStatusCodes = codes
        return copy
    }

    /// The same request, following redirects or not (it does unless set): when not, a 301, 302,
    /// 303, 307 or 308 is the answer, its `Location` in the `HTTPURLResponse`.
    ///
    /// ```swift
    /// Request<Void>.get("https://sho.rt/x1").followsRedirects(false).acceptableStatusCodes([301, 302])
    /// ```
    public func followsRedirects(_ follows: Bool) -> Self {
        var copy = self
        copy.parts.followsRedirects = follows
        return copy
    }

    /// The same request with its query items written by `strategy`
    /// (``QueryEncodingStrategy/default`` unless set).
    public func queryEncoding(_ strategy: QueryEncodingStrategy) -> Self {
        var copy = self
        copy.parts.queryEncoding = strategy
        return copy
    }

    /// The same request under `name`, for logs, ``RequestContext/endpointName`` and mocks.
    ///
    /// ```swift
    /// Request<Age>.get("https://api.agify.io/").named("estimatedAge")
    /// ```
    public func named(_ name: String) -> Self {
        var copy = self
        copy.parts.name = name
        return copy
    }
}
