import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AdHocRequest {
    /// Builds the request this value sends, without sending it.
    ///
    /// ```swift
    /// let request = try Request<[User]>.get("users", on: Api.base).urlRequest()
    /// #expect(request.url?.absoluteString == "https://api.example.com/v1/users")
    /// ```
    ///
    /// The same rules as ``Endpoint/urlRequest(environment:)`` apply, with the same encoders.
    /// Authentication and middleware are not applied here; they run when the request is sent.
    /// - Throws: ``EndpointError`` when a value cannot be placed safely, before anything is sent.
    public func urlRequest() throws(EndpointError) -> URLRequest {
        let shape = parts.shape
        if let problem = shape.problem { throw problem }
        let text: String
        let base: RequestBase?
        switch parts.target {
        case .absolute(let url):
            // A string without a scheme and host would be sent as a relative URL, to nowhere.
            guard let parsed = URL(string: url), parsed.scheme != nil, parsed.host != nil else {
                throw .invalidURL(url)
            }
            text = url
            base = nil
        case .relative(let path, let relativeTo):
            text = try path.urlText(after: relativeTo.urlText.get(), components: ())
            base = relativeTo
        }
        let body = parts.body
        let encoder = parts.bodyEncoder
        let request = try shape.urlRequest(
            url: shape.url(text, parameterComponents: (), queryEncoding: parts.queryEncoding),
            parameterComponents: (),
            headerComponents: ()
        ) { () throws(EndpointError) in
            guard let body else { return nil }
            return try encoder.encodeBody(body)
        }
        return base?.requestProcessor?(request) ?? request
    }
}

extension AdHocRequest: CustomReflectable {
    /// The name: the method and the URL or path as written, without the query, or the name given
    /// with `named(_:)`. Never a header value or the body, so neither `dump` nor the description
    /// derived from it (`AdHocRequest<User, EmptyCodable>(name: "GET users/{1}")`) shows them.
    public var customMirror: Mirror { Mirror(self, children: ["name": name], displayStyle: .struct) }
}
