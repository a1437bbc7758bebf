import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Endpoint {
    /// Builds the request this endpoint sends, without sending it.
    ///
    /// Use it to inspect or snapshot requests, or to send them with your own code:
    ///
    /// ```swift
    /// let request = try UserEndpoint(pathComponents: .init(userId: 42)).urlRequest(environment: .staging)
    /// #expect(request.url?.absoluteString == "https://staging-api.example.com/users/42")
    /// ```
    ///
    /// Authentication and middleware are not applied here; they run when the request is sent.
    /// - Parameter environment: The server environment whose base URL is used.
    /// - Throws: ``EndpointError`` when a value cannot be placed safely, before anything is sent.
    public func urlRequest(
        environment: Server.Environments = Server.defaultEnvironment
    ) throws(EndpointError) -> URLRequest {
        let definition = Self.definition
        let shape = definition.shape
        if let problem = shape.problem { throw problem }

        let server = Server()
        guard let baseURL = server.baseURL(for: environment) else {
            throw .missingBaseURL(server: String(describing: Server.self), environment: String(describing: environment))
        }
        let url: URL
        if let fixed = definition.fixedURL?.url(after: baseURL) {
            url = fixed
        } else {
            let text = try definition.pathTemplate.urlText(after: baseURL, components: pathComponents)
            url = try shape.url(
                text, parameterComponents: parameterComponents, queryEncoding: Self.queryEncodingStrategy)
            definition.fixedURL?.remember(url, after: baseURL)
        }
        let request = try shape.urlRequest(
            url: url,
            parameterComponents: parameterComponents,
            headerComponents: headerComponents
        ) { () throws(EndpointError) in
            Body.self == EmptyCodable.self ? nil : try Self.bodyEncoder.encodeBody(body)
        }
        return server.requestProcessor(request)
    }
}
