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
        if let problem = definition.problem { throw problem }

        let server = Server()
        guard let baseURL = server.baseURL(for: environment) else {
            throw .missingBaseURL(server: String(describing: Server.self), environment: String(describing: environment))
        }

        var text = baseURL.absoluteString
        // A base URL may carry a query of its own (`?api-version=2`); the path goes before it.
        var baseQuery: Substring = ""
        if let mark = text.utf8.firstIndex(of: UInt8(ascii: "?")) {
            baseQuery = text[mark...]
            text = String(text[..<mark])
        }
        if text.utf8.last == UInt8(ascii: "/") { text.removeLast() }
        var path = ""
        try definition.path.render(pathComponents, into: &path)
        if !path.isEmpty {
            if path.utf8.first != UInt8(ascii: "/") { text.append("/") }
            text.append(path)
        }
        text.append(contentsOf: baseQuery)
        appendQuery(definition.queryParameters, to: &text)

        guard let url = URL(string: text) else { throw .invalidURL(text) }
        var request = URLRequest(url: url)
        // GET is URLRequest's default; setting it costs a bridge to NSURLRequest on Linux.
        if definition.method != .get { request.httpMethod = definition.method.rawValue }
        if let timeout = definition.timeout { request.timeoutInterval = timeout }

        // One assignment of all fields: each `setValue` call copies the request's storage on Linux.
        var fields: [String: String] = [:]
        let headers = headerComponents
        for (name, field) in definition.headerList {
            guard let value = field.value(headers) else { continue }
            guard HTTPToken.isValidFieldValue(value) else { throw .invalidHeaderValue(name: name) }
            fields[name] = value
        }
        // A Content-Type header whose value is nil leaves the body's own type in place.
        let setsContentType = definition.contentTypeName.map { fields[$0] != nil } ?? false

        if !definition.formParameters.isEmpty {
            request.httpBody = formBody(definition.formParameters)
            if !setsContentType {
                fields["Content-Type"] = "application/x-www-form-urlencoded"
            }
        } else if Body.self != EmptyCodable.self {
            let encoder = Self.bodyEncoder
            do {
                request.httpBody = try encoder.encode(body)
            } catch {
                throw .bodyEncodingFailed(UnderlyingError(error))
            }
            if !setsContentType, let contentType = encoder.contentType {
                fields["Content-Type"] = contentType
            }
        }
        if !fields.isEmpty { request.allHTTPHeaderFields = fields }

        return server.requestProcessor(request)
    }

    private func appendQuery(_ parameters: [Parameter<ParameterComponents>], to text: inout String) {
        guard !parameters.isEmpty else { return }
        let components = parameterComponents
        let strategy = Self.queryEncodingStrategy
        var separator: Character = text.contains("?") ? "&" : "?"
        for parameter in parameters {
            for value in parameter.values(components) {
                text.append(separator)
                separator = "&"
                switch strategy {
                case .default:
                    text.append(PercentEncoding.encode(parameter.name, as: .component))
                    text.append("=")
                    text.append(PercentEncoding.encode(value, as: .component))
                case .formURLEncoded:
                    text.append(PercentEncoding.encode(parameter.name, as: .form))
                    text.append("=")
                    text.append(PercentEncoding.encode(value, as: .form))
                case .custom(let encode):
                    let (name, value) = encode(URLQueryItem(name: parameter.name, value: value))
                    text.append(name)
                    if let value {
                        text.append("=")
                        text.append(value)
                    }
                }
            }
        }
    }

    private func formBody(_ parameters: [Parameter<ParameterComponents>]) -> Data {
        let components = parameterComponents
        var text = ""
        for parameter in parameters {
            for value in parameter.values(components) {
                if !text.isEmpty { text.append("&") }
                text.append(PercentEncoding.encode(parameter.name, as: .form))
                text.append("=")
                text.append(PercentEncoding.encode(value, as: .form))
            }
        }
        return Data(text.utf8)
    }
}
