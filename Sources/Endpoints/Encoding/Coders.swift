import Foundation

/// Something that turns an endpoint's ``Endpoint/Body`` into bytes: `JSONEncoder`,
/// ``MultipartFormEncoder``, or your own.
///
/// ```swift
/// struct PlistBodyEncoder: EncoderType {
///     var contentType: String? { "application/x-plist" }
///     func encode<T: Encodable>(_ value: T) throws -> Data { try PropertyListEncoder().encode(value) }
/// }
/// ```
public protocol EncoderType {
    /// Encodes `value` into the request body.
    func encode<T: Encodable>(_ value: T) throws -> Data

    /// The `Content-Type` sent with the body unless the definition sets one; `nil` sends none.
    /// The default is the type's ``contentType-swift.type.property``.
    var contentType: String? { get }

    /// The `Content-Type` of every value of this encoder type, as Endpoints 0.4 declared it
    /// (`static var contentType`). An encoder that declares only this one sends it; one whose
    /// content type depends on the value (a multipart boundary) implements the instance property.
    static var contentType: String? { get }
}

extension EncoderType {
    /// The type's ``contentType-swift.type.property``, so a 0.4 encoder's static content type is sent.
    public var contentType: String? { Self.contentType }

    /// No content type by default.
    public static var contentType: String? { nil }
}

extension JSONEncoder: EncoderType {
    /// `application/json`.
    public var contentType: String? { "application/json" }

    /// `application/json`.
    public static var contentType: String? { "application/json" }
}

/// Something that turns response bytes into a value: `JSONDecoder`, or your own.
public protocol DecoderType {
    /// Decodes a value of `type` from `data`.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONDecoder: DecoderType {}

/// The coders the defaults hand out. Creating a `JSONEncoder` per request is measurable, and
/// both types are safe to share: each call copies the options it uses.
enum SharedCoders {
    static let jsonEncoder = JSONEncoder()
    static let jsonDecoder = JSONDecoder()
}

/// How query items are written into the URL.
///
/// ```swift
/// static var queryEncodingStrategy: QueryEncodingStrategy { .formURLEncoded }
/// ```
public enum QueryEncodingStrategy: Sendable {
    /// RFC 3986: everything except unreserved characters is escaped, space is `%20`, `+` is `%2B`.
    /// Any string round-trips through a standard server-side query parser.
    case `default`
    /// As `.default`, but a space is written as `+` (HTML form style).
    case formURLEncoded
    /// Your own encoding: return the already-encoded name and value (`nil` writes the name alone).
    case custom(@Sendable (URLQueryItem) -> (name: String, value: String?))
}
