import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The constructors: one per common method and the generic `request(_:…)`, each taking an absolute
// URL, or a path on a `RequestBase`. All of them end in `AdHocRequestParts.init`, through
// `AdHocRequest.init(method:target:content:body:bodyEncoder:)`.

extension AdHocRequest {
    /// A request with any method to an absolute URL.
    ///
    /// ```swift
    /// Request<Void>.request("PURGE", "https://cdn.example.com/cache/logo.png")
    /// ```
    /// - Parameters:
    ///   - method: The method; any RFC 9110 token.
    ///   - url: The absolute URL, query included (the query items are added after it). Interpolated
    ///     values are not encoded here; put them in a path on a ``RequestBase`` or in query items.
    ///   - body: The body, encoded with `encoder`; none when `nil`.
    ///   - encoder: The body's encoder; a shared `JSONEncoder` when `nil`. Pass a
    ///     ``MultipartFormEncoder`` for a ``MultipartForm`` body.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func request(
        _ method: Method,
        _ url: String,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        Self(method: method, target: .absolute(url), content: content(), body: body, bodyEncoder: encoder)
    }

    /// A request with any method to a path on `base`.
    ///
    /// ```swift
    /// Request<Void>.request("PURGE", "cache/\(file)", on: Api.base)
    /// ```
    /// - Parameters:
    ///   - method: The method; any RFC 9110 token.
    ///   - path: The path, after the base URL's own path. Each interpolated value is one
    ///     percent-encoded segment.
    ///   - base: The base URL, headers, authentication and middleware.
    ///   - body: The body, encoded with `encoder`; none when `nil`.
    ///   - encoder: The body's encoder; a shared `JSONEncoder` when `nil`. Pass a
    ///     ``MultipartFormEncoder`` for a ``MultipartForm`` body.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func request(
        _ method: Method,
        _ path: PathTemplate<Void>,
        on base: RequestBase,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        Self(method: method, target: .relative(path, base), content: content(), body: body, bodyEncoder: encoder)
    }

    /// A `GET` request to an absolute URL. Fetches a resource.
    ///
    /// ```swift
    /// Request<[User]>.get("https://jsonplaceholder.typicode.com/users")
    /// ```
    /// - Parameters:
    ///   - url: The absolute URL, query included.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func get(
        _ url: String,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.get, url, content)
    }

    /// A `GET` request to a path on `base`. Fetches a resource.
    ///
    /// ```swift
    /// Request<User>.get("users/\(id)", on: Api.base)
    /// ```
    /// - Parameters:
    ///   - path: The path, after the base URL's own path; each interpolated value is one segment.
    ///   - base: The base URL, headers, authentication and middleware.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func get(
        _ path: PathTemplate<Void>,
        on base: RequestBase,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.get, path, on: base, content)
    }

    /// A `DELETE` request to an absolute URL. Deletes a resource.
    ///
    /// ```swift
    /// Request<Void>.delete("https://api.example.com/users/42")
    /// ```
    /// - Parameters:
    ///   - url: The absolute URL, query included.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func delete(
        _ url: String,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.delete, url, content)
    }

    /// A `DELETE` request to a path on `base`. Deletes a resource.
    ///
    /// ```swift
    /// Request<Void>.delete("users/\(id)", on: Api.base)
    /// ```
    /// - Parameters:
    ///   - path: The path, after the base URL's own path; each interpolated value is one segment.
    ///   - base: The base URL, headers, authentication and middleware.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func delete(
        _ path: PathTemplate<Void>,
        on base: RequestBase,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.delete, path, on: base, content)
    }

    /// A `POST` request to an absolute URL. Creates a resource, or sends data to be processed.
    ///
    /// ```swift
    /// Request<User>.post("https://api.example.com/users", body: NewUser(name: "Ada"))
    /// ```
    /// - Parameters:
    ///   - url: The absolute URL, query included.
    ///   - body: The body, encoded with `encoder`; none when `nil`.
    ///   - encoder: The body's encoder; a shared `JSONEncoder` when `nil`.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func post(
        _ url: String,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.post, url, body: body, encoder: encoder, content)
    }

    /// A `POST` request to a path on `base`. Creates a resource, or sends data to be processed.
    ///
    /// ```swift
    /// Request<Token>.post("login", on: Api.base) {
    ///     Parameter.formValue("user", value: name)
    ///     Parameter.formValue("password", value: password)
    /// }
    /// ```
    /// - Parameters:
    ///   - path: The path, after the base URL's own path; each interpolated value is one segment.
    ///   - base: The base URL, headers, authentication and middleware.
    ///   - body: The body, encoded with `encoder`; none when `nil`.
    ///   - encoder: The body's encoder; a shared `JSONEncoder` when `nil`.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func post(
        _ path: PathTemplate<Void>,
        on base: RequestBase,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.post, path, on: base, body: body, encoder: encoder, content)
    }

    /// A `PUT` request to an absolute URL. Replaces a resource.
    ///
    /// ```swift
    /// Request<User>.put("https://api.example.com/users/42", body: user)
    /// ```
    /// - Parameters:
    ///   - url: The absolute URL, query included.
    ///   - body: The body, encoded with `encoder`; none when `nil`.
    ///   - encoder: The body's encoder; a shared `JSONEncoder` when `nil`.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func put(
        _ url: String,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.put, url, body: body, encoder: encoder, content)
    }

    /// A `PUT` request to a path on `base`. Replaces a resource.
    ///
    /// ```swift
    /// Request<User>.put("users/\(user.id)", on: Api.base, body: user)
    /// ```
    /// - Parameters:
    ///   - path: The path, after the base URL's own path; each interpolated value is one segment.
    ///   - base: The base URL, headers, authentication and middleware.
    ///   - body: The body, encoded with `encoder`; none when `nil`.
    ///   - encoder: The body's encoder; a shared `JSONEncoder` when `nil`.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func put(
        _ path: PathTemplate<Void>,
        on base: RequestBase,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.put, path, on: base, body: body, encoder: encoder, content)
    }

    /// A `PATCH` request to an absolute URL. Changes part of a resource.
    ///
    /// ```swift
    /// Request<User>.patch("https://api.example.com/users/42", body: ["name": "Ada"])
    /// ```
    /// - Parameters:
    ///   - url: The absolute URL, query included.
    ///   - body: The body, encoded with `encoder`; none when `nil`.
    ///   - encoder: The body's encoder; a shared `JSONEncoder` when `nil`.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func patch(
        _ url: String,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.patch, url, body: body, encoder: encoder, content)
    }

    /// A `PATCH` request to a path on `base`. Changes part of a resource.
    ///
    /// ```swift
    /// Request<User>.patch("users/\(id)", on: Api.base, body: ["name": "Ada"])
    /// ```
    /// - Parameters:
    ///   - path: The path, after the base URL's own path; each interpolated value is one segment.
    ///   - base: The base URL, headers, authentication and middleware.
    ///   - body: The body, encoded with `encoder`; none when `nil`.
    ///   - encoder: The body's encoder; a shared `JSONEncoder` when `nil`.
    ///   - content: Query items, form fields and headers (see ``ContentBuilder``).
    public static func patch(
        _ path: PathTemplate<Void>,
        on base: RequestBase,
        body: (any Encodable & Sendable)? = nil,
        encoder: (any EncoderType & Sendable)? = nil,
        @ContentBuilder<Void, Void> _ content: () -> ContentBuilder<Void, Void>.Component = {
            ContentBuilder.buildBlock()
        }
    ) -> Self {
        request(.patch, path, on: base, body: body, encoder: encoder, content)
    }
}
