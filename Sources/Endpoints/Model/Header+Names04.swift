/// The header names Endpoints 0.4 declared that the common set in `Header.swift` does not.
///
/// Some are response headers, and `Host`, `TE`, `Trailer`, `Transfer-Encoding` and `Upgrade` are
/// set by `URLSession` itself; they are here so that 0.4 code naming them compiles.
extension Header {
    /// Creates a header name; Endpoints 0.4's spelling of ``init(_:)``.
    ///
    /// ```swift
    /// let apiKey = Header(name: "X-API-Key")
    /// ```
    public init(name: String) { self.init(name) }

    /// `Accept-Charset`.
    public static let acceptCharset = Header("Accept-Charset")

    /// `Accept-Ranges`.
    public static let acceptRanges = Header("Accept-Ranges")

    /// `Age`.
    public static let age = Header("Age")

    /// `Allow`.
    public static let allow = Header("Allow")

    /// `Clear-Site-Data`.
    public static let clearSiteData = Header("Clear-Site-Data")

    /// `Content-Language`.
    public static let contentLanguage = Header("Content-Language")

    /// `Content-Location`.
    public static let contentLocation = Header("Content-Location")

    /// `Content-MD5`.
    public static let contentMD5 = Header("Content-MD5")

    /// `Content-Range`.
    public static let contentRange = Header("Content-Range")

    /// `Date`.
    public static let date = Header("Date")

    /// `Expect`.
    public static let expect = Header("Expect")

    /// `Expires`.
    public static let expires = Header("Expires")

    /// `From`.
    public static let from = Header("From")

    /// `Host`.
    public static let host = Header("Host")

    /// `If-Range`.
    public static let ifRange = Header("If-Range")

    /// `If-Unmodified-Since`.
    public static let ifUnmodifiedSince = Header("If-Unmodified-Since")

    /// `Last-Modified`.
    public static let lastModified = Header("Last-Modified")

    /// `Max-Forwards`.
    public static let maxForwards = Header("Max-Forwards")

    /// `Pragma`.
    public static let pragma = Header("Pragma")

    /// `Proxy-Authenticate`.
    public static let proxyAuthenticate = Header("Proxy-Authenticate")

    /// `Range`.
    public static let range = Header("Range")

    /// `Server`.
    public static let server = Header("Server")

    /// `TE`.
    public static let te = Header("TE")

    /// `Trailer`.
    public static let trailer = Header("Trailer")

    /// `Transfer-Encoding`.
    public static let transferEncoding = Header("Transfer-Encoding")

    /// `Upgrade`.
    public static let upgrade = Header("Upgrade")

    /// `Vary`.
    public static let vary = Header("Vary")

    /// `Via`.
    public static let via = Header("Via")

    /// `Warning`.
    public static let warning = Header("Warning")
}
