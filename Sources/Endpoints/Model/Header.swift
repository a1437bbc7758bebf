/// The name of an HTTP header field.
///
/// Names compare case-insensitively, as HTTP requires. Common names are static members, and you
/// add your own the same way:
///
/// ```swift
/// extension Header {
///     static let traceId: Header = "X-Trace-Id"
/// }
///
/// Definition<Search>(
///     method: .get,
///     path: "search",
///     headers: [Header.accept.value("application/json"), Header.traceId.value(path: \.traceId)]
/// )
/// ```
///
/// A name that is not an RFC 9110 token is refused with ``EndpointError/invalidHeaderName(_:)``
/// when the request is built.
public struct Header: Hashable, Sendable, ExpressibleByStringLiteral {
    /// The name as written, e.g. `Content-Type`.
    public let name: String
    private let key: String
    /// Whether `name` is an RFC 9110 token, found once: a request checks it each time it is made.
    let isToken: Bool

    /// Creates a header name.
    public init(_ name: String) {
        self.name = name
        self.key = name.lowercased()
        self.isToken = HTTPToken.isValid(name)
    }

    /// Creates a header name from a string literal.
    public init(stringLiteral value: String) { self.init(value) }

    /// Case-insensitive equality.
    public static func == (lhs: Header, rhs: Header) -> Bool { lhs.key == rhs.key }

    /// Hashes the lower-cased name.
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    var lowercasedName: String { key }
}

extension Header {
    /// `Accept`
    public static let accept: Header = "Accept"
    /// `Authorization`
    public static let authorization: Header = "Authorization"
    /// `Content-Type`
    public static let contentType: Header = "Content-Type"
    /// `User-Agent`
    public static let userAgent: Header = "User-Agent"
}

/// Where a header's value comes from: fixed in the definition, or read from the endpoint's
/// ``Endpoint/headerComponents``. Written as ``Header/value(_:)`` or ``Header/value(path:)``.
struct HeaderValue<T>: Sendable {
    /// Where the value comes from. A fixed value is stored as it is, not captured in a closure
    /// (one allocation fewer for each header of an ad-hoc request).
    enum Source: Sendable {
        case fixed(String?)
        case read(@Sendable (T) -> String?)
    }

    let source: Source

    /// A header whose value is read from the components at `path`.
    static func read<U: ParameterRepresentable>(_ path: any KeyPath<T, U> & Sendable) -> HeaderValue {
        HeaderValue(source: .read { $0[keyPath: path].parameterValue })
    }

    /// A header with a fixed value.
    static func fixed<U: ParameterRepresentable>(_ value: U) -> HeaderValue {
        HeaderValue(source: .fixed(value.parameterValue))
    }

    /// The value for `components`; `nil` leaves the header out.
    func value(_ components: T) -> String? {
        switch source {
        case .fixed(let text): text
        case .read(let read): read(components)
        }
    }
}
