// Endpoints 0.4's header names that the common set in `Model/Header.swift` does not declare, kept so
// that 0.4 code naming them compiles, each deprecated with the spelling to write instead. Some are
// response headers, and `Host`, `TE`, `Trailer`, `Transfer-Encoding` and `Upgrade` are set by
// `URLSession` itself.
extension Header {
    /// Creates a header name; Endpoints 0.4's spelling of ``init(_:)``.
    ///
    /// ```swift
    /// let apiKey = Header("X-API-Key")   // rather than Header(name: "X-API-Key")
    /// ```
    @available(*, deprecated, message: "Write Header(\"X-API-Key\"), or the string literal \"X-API-Key\".")
    public init(name: String) { self.init(name) }

    /// `Accept-Charset`.
    @available(
        *, deprecated, message: "Write Header(\"Accept-Charset\"), or declare it in your own extension of Header."
    )
    public static let acceptCharset = Header("Accept-Charset")

    /// `Accept-Ranges`.
    @available(
        *, deprecated, message: "Write Header(\"Accept-Ranges\"), or declare it in your own extension of Header."
    )
    public static let acceptRanges = Header("Accept-Ranges")

    /// `Age`.
    @available(*, deprecated, message: "Write Header(\"Age\"), or declare it in your own extension of Header.")
    public static let age = Header("Age")

    /// `Allow`.
    @available(*, deprecated, message: "Write Header(\"Allow\"), or declare it in your own extension of Header.")
    public static let allow = Header("Allow")

    /// `Clear-Site-Data`.
    @available(
        *, deprecated, message: "Write Header(\"Clear-Site-Data\"), or declare it in your own extension of Header."
    )
    public static let clearSiteData = Header("Clear-Site-Data")

    /// `Content-Language`.
    @available(
        *, deprecated, message: "Write Header(\"Content-Language\"), or declare it in your own extension of Header."
    )
    public static let contentLanguage = Header("Content-Language")

    /// `Content-Location`.
    @available(
        *, deprecated, message: "Write Header(\"Content-Location\"), or declare it in your own extension of Header."
    )
    public static let contentLocation = Header("Content-Location")

    /// `Content-MD5`.
    @available(*, deprecated, message: "Write Header(\"Content-MD5\"), or declare it in your own extension of Header.")
    public static let contentMD5 = Header("Content-MD5")

    /// `Content-Range`.
    @available(
        *, deprecated, message: "Write Header(\"Content-Range\"), or declare it in your own extension of Header."
    )
    public static let contentRange = Header("Content-Range")

    /// `Date`.
    @available(*, deprecated, message: "Write Header(\"Date\"), or declare it in your own extension of Header.")
    public static let date = Header("Date")

    /// `Expect`.
    @available(*, deprecated, message: "Write Header(\"Expect\"), or declare it in your own extension of Header.")
    public static let expect = Header("Expect")

    /// `Expires`.
    @available(*, deprecated, message: "Write Header(\"Expires\"), or declare it in your own extension of Header.")
    public static let expires = Header("Expires")

    /// `From`.
    @available(*, deprecated, message: "Write Header(\"From\"), or declare it in your own extension of Header.")
    public static let from = Header("From")

    /// `Host`.
    @available(*, deprecated, message: "Write Header(\"Host\"), or declare it in your own extension of Header.")
    public static let host = Header("Host")

    /// `If-Range`.
    @available(*, deprecated, message: "Write Header(\"If-Range\"), or declare it in your own extension of Header.")
    public static let ifRange = Header("If-Range")

    /// `If-Unmodified-Since`.
    @available(
        *, deprecated, message: "Write Header(\"If-Unmodified-Since\"), or declare it in your own extension of Header."
    )
    public static let ifUnmodifiedSince = Header("If-Unmodified-Since")

    /// `Last-Modified`.
    @available(
        *, deprecated, message: "Write Header(\"Last-Modified\"), or declare it in your own extension of Header."
    )
    public static let lastModified = Header("Last-Modified")

    /// `Max-Forwards`.
    @available(*, deprecated, message: "Write Header(\"Max-Forwards\"), or declare it in your own extension of Header.")
    public static let maxForwards = Header("Max-Forwards")

    /// `Pragma`.
    @available(*, deprecated, message: "Write Header(\"Pragma\"), or declare it in your own extension of Header.")
    public static let pragma = Header("Pragma")

    /// `Proxy-Authenticate`.
    @available(
        *, deprecated, message: "Write Header(\"Proxy-Authenticate\"), or declare it in your own extension of Header."
    )
    public static let proxyAuthenticate = Header("Proxy-Authenticate")

    /// `Range`.
    @available(*, deprecated, message: "Write Header(\"Range\"), or declare it in your own extension of Header.")
    public static let range = Header("Range")

    /// `Server`.
    @available(*, deprecated, message: "Write Header(\"Server\"), or declare it in your own extension of Header.")
    public static let server = Header("Server")

    /// `TE`.
    @available(*, deprecated, message: "Write Header(\"TE\"), or declare it in your own extension of Header.")
    public static let te = Header("TE")

    /// `Trailer`.
    @available(*, deprecated, message: "Write Header(\"Trailer\"), or declare it in your own extension of Header.")
    public static let trailer = Header("Trailer")

    /// `Transfer-Encoding`.
    @available(
        *, deprecated, message: "Write Header(\"Transfer-Encoding\"), or declare it in your own extension of Header."
    )
    public static let transferEncoding = Header("Transfer-Encoding")

    /// `Upgrade`.
    @available(*, deprecated, message: "Write Header(\"Upgrade\"), or declare it in your own extension of Header.")
    public static let upgrade = Header("Upgrade")

    /// `Vary`.
    @available(*, deprecated, message: "Write Header(\"Vary\"), or declare it in your own extension of Header.")
    public static let vary = Header("Vary")

    /// `Via`.
    @available(*, deprecated, message: "Write Header(\"Via\"), or declare it in your own extension of Header.")
    public static let via = Header("Via")

    /// `Warning`.
    @available(*, deprecated, message: "Write Header(\"Warning\"), or declare it in your own extension of Header.")
    public static let warning = Header("Warning")

    // Names the common set had in earlier builds of this release: set by URLSession
    // (`Accept-Encoding`, `Connection`, `Keep-Alive`, `Content-Length`), response headers, or a
    // browser's (`Origin`, `Referer`).
    @available(
        *, deprecated, message: "Write Header(\"Accept-Encoding\"), or declare it in your own extension of Header."
    )
    public static let acceptEncoding = Header("Accept-Encoding")

    @available(*, deprecated, message: "Write Header(\"Connection\"), or declare it in your own extension of Header.")
    public static let connection = Header("Connection")

    @available(
        *, deprecated, message: "Write Header(\"Content-Disposition\"), or declare it in your own extension of Header."
    )
    public static let contentDisposition = Header("Content-Disposition")

    @available(
        *, deprecated, message: "Write Header(\"Content-Encoding\"), or declare it in your own extension of Header."
    )
    public static let contentEncoding = Header("Content-Encoding")

    @available(
        *, deprecated, message: "Write Header(\"Content-Length\"), or declare it in your own extension of Header."
    )
    public static let contentLength = Header("Content-Length")

    @available(*, deprecated, message: "Write Header(\"ETag\"), or declare it in your own extension of Header.")
    public static let eTag = Header("ETag")

    @available(*, deprecated, message: "Write Header(\"Keep-Alive\"), or declare it in your own extension of Header.")
    public static let keepAlive = Header("Keep-Alive")

    @available(*, deprecated, message: "Write Header(\"Location\"), or declare it in your own extension of Header.")
    public static let location = Header("Location")

    @available(*, deprecated, message: "Write Header(\"Origin\"), or declare it in your own extension of Header.")
    public static let origin = Header("Origin")

    @available(
        *, deprecated, message: "Write Header(\"Proxy-Authorization\"), or declare it in your own extension of Header."
    )
    public static let proxyAuthorization = Header("Proxy-Authorization")

    @available(*, deprecated, message: "Write Header(\"Referer\"), or declare it in your own extension of Header.")
    public static let referer = Header("Referer")

    @available(*, deprecated, message: "Write Header(\"Retry-After\"), or declare it in your own extension of Header.")
    public static let retryAfter = Header("Retry-After")

    @available(*, deprecated, message: "Write Header(\"Set-Cookie\"), or declare it in your own extension of Header.")
    public static let setCookie = Header("Set-Cookie")

    @available(
        *, deprecated, message: "Write Header(\"WWW-Authenticate\"), or declare it in your own extension of Header."
    )
    public static let wwwAuthenticate = Header("WWW-Authenticate")
}
