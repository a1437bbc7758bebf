import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The last check before the transport: every header of the request, whatever set it (the
/// definition, the server's `requestProcessor`, authentication, a middleware), must be a valid
/// field name and a value without CR, LF or NUL, so that nothing can split the request; and a
/// `Content-Length` must be the length of a body in memory. A shorter one cuts the body (the
/// server gets its first bytes, silently, on every transport), a longer one leaves the server
/// waiting for bytes that never come (the request hangs until its timeout).
enum HeaderValidation {
    static func validate(_ request: URLRequest) throws(EndpointError) {
        guard let fields = request.allHTTPHeaderFields else { return }
        for (name, value) in fields {
            guard HTTPToken.isValid(name) else { throw .invalidHeaderName(name) }
            guard HTTPToken.isValidFieldValue(value) else { throw .invalidHeaderValue(name: name) }
            // A file or a stream declares its length here (the transport reads it); a body in
            // memory has its own.
            if name.utf8.count == 14, name.lowercased() == "content-length", let body = request.httpBody,
                value.trimmingCharacters(in: .whitespaces) != String(body.count)
            {
                throw .conflictingFraming(header: name)
            }
        }
    }
}
