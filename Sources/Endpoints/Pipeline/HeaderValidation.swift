import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The last check before the transport: every header of the request, whatever set it (the
/// definition, the server's `requestProcessor`, authentication, a middleware), must be a valid
/// field name and a value without CR, LF or NUL, so that nothing can split the request.
enum HeaderValidation {
    static func validate(_ request: URLRequest) throws(EndpointError) {
        guard let fields = request.allHTTPHeaderFields else { return }
        for (name, value) in fields {
            guard HTTPToken.isValid(name) else { throw .invalidHeaderName(name) }
            guard HTTPToken.isValidFieldValue(value) else { throw .invalidHeaderValue(name: name) }
        }
    }
}
