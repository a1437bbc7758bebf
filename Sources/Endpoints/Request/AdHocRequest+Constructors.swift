import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The constructors: `get` and `post`, the two most requests use, and `request(_:…)` for every method, each taking a
// `RequestTarget` (an absolute URL, or a path when a `RequestBase` is given). All of them end in
// `AdHocRequestParts.init`, through `AdHocRequest.init(method:target:content:body:bodyEncoder:)`.

extension AdHocRequest {
    /// A request with any method.
    ///
    /// ```swift
    /// Request<Void>.request("PURGE", "https://cdn.example.com/cache/logo.png")
    /// Request<Void>.request("PURGE", "cache/\(file)", on: Api.base)
    /// ```
    /// - Parameters:
    ///   - method: The method; any RFC 9110 token.
    ///   - target: An absolute URL, query included (the query items are added after it); or, with
    ///     `base`, the path after the base URL's own path, each interpolated value one
    ///     percent-encoded segment. See ``RequestTarget``.
    ///   - base: The base URL, headers, authentication and middleware; none for an absolute URL.
    ///   - body: The body, encoded with `encoder`; none when `nil`.
    ///   - encoder: The body's encoder; a shared `JSONEncoder` when `nil`. Pass a
    ///     ``MultipartFormEncoder`` for a ``MultipartForm`` body.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func request(
        _ method: Method,
        _ target: RequestTarget,
        on base: RequestBase? = nil,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        Self(method: method, target: .init(target, on: base), content: content(), body: body, bodyEncoder: encoder)
    }

    /// A `GET` request. Fetches a resource.
    ///
    /// ```swift
    /// Request<[User]>.get("https://jsonplaceholder.typicode.com/users")
    /// Request<User>.get("users/\(id)", on: Api.base)
    /// ```
    /// - Parameters:
    ///   - target: An absolute URL, query included (the query items are added after it); or, with
    ///     `base`, the path after the base URL's own path, each interpolated value one
    ///     percent-encoded segment. See ``RequestTarget``.
    ///   - base: The base URL, headers, authentication and middleware; none for an absolute URL.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func get(
        _ target: RequestTarget,
        on base: RequestBase? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        Self(method: .get, target: .init(target, on: base), content: content(), body: nil, bodyEncoder: nil)
    }

    /// A `POST` request. Creates a resource, or sends data to be processed.
    ///
    /// ```swift
    /// Request<User>.post("https://api.example.com/users", body: NewUser(name: "Ada"))
    /// Request<Token>.post("login", on: Api.base) { Parameter.formValue("user", value: name) }
    /// ```
    /// - Parameters:
    ///   - target: An absolute URL, query included (the query items are added after it); or, with
    ///     `base`, the path after the base URL's own path, each interpolated value one
    ///     percent-encoded segment. See ``RequestTarget``.
    ///   - base: The base URL, headers, authentication and middleware; none for an absolute URL.
    ///   - body: The body, encoded with `encoder`; none when `nil`.
    ///   - encoder: The body's encoder; a shared `JSONEncoder` when `nil`. Pass a
    ///     ``MultipartFormEncoder`` for a ``MultipartForm`` body.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func post(
        _ target: RequestTarget,
        on base: RequestBase? = nil,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        Self(method: .post, target: .init(target, on: base), content: content(), body: body, bodyEncoder: encoder)
    }

}
