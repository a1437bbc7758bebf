// Header names this library declared until the public surface was cut to what most requests
// name: `accept`, `authorization`, `contentType` and `userAgent` stay in `Model/Header.swift`. Each
// of these still compiles, deprecated with the spelling to write instead.
extension Header {
    /// `Accept-Language`.
    @available(
        *, deprecated,
        message:
            "Write \"Accept-Language\" (a Header is a string literal), or declare it in your own extension of Header."
    )
    public static let acceptLanguage: Header = "Accept-Language"

    /// `Cache-Control`.
    @available(
        *, deprecated,
        message:
            "Write \"Cache-Control\" (a Header is a string literal), or declare it in your own extension of Header."
    )
    public static let cacheControl: Header = "Cache-Control"

    /// `Cookie`.
    @available(
        *, deprecated,
        message: "Write \"Cookie\" (a Header is a string literal), or declare it in your own extension of Header."
    )
    public static let cookie: Header = "Cookie"

    /// `Idempotency-Key`.
    @available(
        *, deprecated,
        message:
            "Write \"Idempotency-Key\" (a Header is a string literal), or declare it in your own extension of Header."
    )
    public static let idempotencyKey: Header = "Idempotency-Key"

    /// `If-Match`.
    @available(
        *, deprecated,
        message: "Write \"If-Match\" (a Header is a string literal), or declare it in your own extension of Header."
    )
    public static let ifMatch: Header = "If-Match"

    /// `If-Modified-Since`.
    @available(
        *, deprecated,
        message:
            "Write \"If-Modified-Since\" (a Header is a string literal), or declare it in your own extension of Header."
    )
    public static let ifModifiedSince: Header = "If-Modified-Since"

    /// `If-None-Match`.
    @available(
        *, deprecated,
        message:
            "Write \"If-None-Match\" (a Header is a string literal), or declare it in your own extension of Header."
    )
    public static let ifNoneMatch: Header = "If-None-Match"
}
