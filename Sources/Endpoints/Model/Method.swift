/// An HTTP request method.
///
/// The common methods are static members; any other RFC 9110 token works too:
///
/// ```swift
/// Definition<Purge>(method: .get, path: "cache")
/// Definition<Purge>(method: "PURGE", path: "cache")
/// ```
///
/// A method that is not a valid token (for example one with a space or a newline) is refused
/// with ``EndpointError/invalidMethod(_:)`` when the request is built.
public struct Method: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The method as it goes on the wire, e.g. `GET`.
    public let rawValue: String

    /// Creates a method from its token, kept exactly as given (methods are case-sensitive).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from a string literal: `"PURGE"`.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// `GET`
    public static let get = Method(rawValue: "GET")
    /// `POST`
    public static let post = Method(rawValue: "POST")
    /// `PUT`
    public static let put = Method(rawValue: "PUT")
    /// `PATCH`
    public static let patch = Method(rawValue: "PATCH")
    /// `DELETE`
    public static let delete = Method(rawValue: "DELETE")
    /// `HEAD`
    public static let head = Method(rawValue: "HEAD")
    /// `OPTIONS`
    public static let options = Method(rawValue: "OPTIONS")

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2).
    var isIdempotent: Bool { Method.idempotentNames.contains(rawValue) }

    /// The idempotent methods of RFC 9110 §9.2.2, the one list the library uses (``RetryMiddleware`` too).
    static let idempotentNames: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]

    var isValidToken: Bool { HTTPToken.isValid(rawValue) }
}

/// RFC 9110 §5.6.2 `token`, the syntax of method and header names.
enum HTTPToken {
    static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty else { return false }
        return text.utf8.allSatisfy(isTokenByte)
    }

    /// Whether `byte` is a `tchar` (RFC 9110 §5.6.2): a letter, a digit or one of ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// A header value may hold visible characters, spaces and tabs, but never CR, LF or NUL
    /// (RFC 9110 §5.5), which would end the header or the message early.
    static func isValidFieldValue(_ text: String) -> Bool {
        for byte in text.utf8 where byte == 0x0D || byte == 0x0A || byte == 0x00 {
            return false
        }
        return true
    }
}
