import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The constructors for DELETE, PUT and PATCH: each repeated `request(_:…)` with its method filled
// in. They still compile, deprecated with the spelling to write instead, and forward to it.

extension AdHocRequest {
    /// A `DELETE` request. Deletes a resource.
    ///
    /// ```swift
    /// Request<Void>.delete("https://api.example.com/users/42")
    /// Request<Void>.delete("users/\(id)", on: Api.base)
    /// ```
    /// - Parameters:
    ///   - target: An absolute URL, query included (the query items are added after it); or, with
    ///     `base`, the path after the base URL's own path, each interpolated value one
    ///     percent-encoded segment. See ``RequestTarget``.
    ///   - base: The base URL, headers, authentication and middleware; none for an absolute URL.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    @available(
        *, deprecated,
        message: "Write .request(.delete, target, ...): the one constructor for every method but GET and POST."
    )
    public static func delete(
        _ target: RequestTarget,
        on base: RequestBase? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.delete, target, on: base, content)
    }

    /// A `PUT` request. Replaces a resource.
    ///
    /// ```swift
    /// Request<User>.put("https://api.example.com/users/42", body: user)
    /// Request<User>.put("users/\(user.id)", on: Api.base, body: user)
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
    @available(
        *, deprecated,
        message: "Write .request(.put, target, ...): the one constructor for every method but GET and POST."
    )
    public static func put(
        _ target: RequestTarget,
        on base: RequestBase? = nil,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.put, target, on: base, body: body, encoder: encoder, content)
    }

    /// A `PATCH` request. Changes part of a resource.
    ///
    /// ```swift
    /// Request<User>.patch("https://api.example.com/users/42", body: ["name": "Ada"])
    /// Request<User>.patch("users/\(id)", on: Api.base, body: ["name": "Ada"])
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
    @available(
        *, deprecated,
        message: "Write .request(.patch, target, ...): the one constructor for every method but GET and POST."
    )
    public static func patch(
        _ target: RequestTarget,
        on base: RequestBase? = nil,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.patch, target, on: base, body: body, encoder: encoder, content)
    }
}
