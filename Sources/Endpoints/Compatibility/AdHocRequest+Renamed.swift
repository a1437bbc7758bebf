import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The ad-hoc constructors that took an absolute URL as a `String`, from before each method had one
// constructor taking a `RequestTarget`. A string literal is a `RequestTarget` and picks the new
// constructor (these are disfavoured, and take no content closure, so that a literal with one
// cannot land here); a URL held in a `String` variable lands here, with a warning.

extension AdHocRequest {
    /// A request to an absolute URL held in a `String`.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass RequestTarget(url) instead: .request(method, RequestTarget(url)).")
    public static func request(
        _ method: Method,
        _ url: String,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil
    ) -> Self {
        request(method, RequestTarget(url), body: body, encoder: encoder)
    }

    /// A request to an absolute URL held in a `String`.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass RequestTarget(url) instead: .get(RequestTarget(url)).")
    public static func get(
        _ url: String
    ) -> Self {
        get(RequestTarget(url))
    }

    /// A request to an absolute URL held in a `String`.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass RequestTarget(url) instead: .delete(RequestTarget(url)).")
    public static func delete(
        _ url: String
    ) -> Self {
        delete(RequestTarget(url))
    }

    /// A request to an absolute URL held in a `String`.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass RequestTarget(url) instead: .post(RequestTarget(url)).")
    public static func post(
        _ url: String,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil
    ) -> Self {
        post(RequestTarget(url), body: body, encoder: encoder)
    }

    /// A request to an absolute URL held in a `String`.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass RequestTarget(url) instead: .put(RequestTarget(url)).")
    public static func put(
        _ url: String,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil
    ) -> Self {
        put(RequestTarget(url), body: body, encoder: encoder)
    }

    /// A request to an absolute URL held in a `String`.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass RequestTarget(url) instead: .patch(RequestTarget(url)).")
    public static func patch(
        _ url: String,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil
    ) -> Self {
        patch(RequestTarget(url), body: body, encoder: encoder)
    }
}
