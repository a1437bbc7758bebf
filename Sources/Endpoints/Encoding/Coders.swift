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
    /// The default is the type's Endpoints 0.4 `static var contentType`, `nil` unless declared.
    var contentType: String? { get }

    /// The `Content-Type` of every value of this encoder type, as Endpoints 0.4 declared it. An
    /// encoder that declares only this one still sends it; see `Compatibility/EncoderType+04.swift`.
    @available(
        *,
        deprecated,
        message: "Implement the instance property `var contentType: String?`, which is what Endpoints sends."
    )
    static var contentType: String? { get }
}

extension EncoderType {
    /// The type's Endpoints 0.4 `static var contentType`, `nil` unless it declares one.
    public var contentType: String? { Compatibility04.encoders.contentType(of: Self.self) }
}

extension JSONEncoder: EncoderType {
    /// `application/json`.
    public var contentType: String? { "application/json" }
}

/// Something that turns response bytes into a value: `JSONDecoder`, or your own.
public protocol DecoderType {
    /// Decodes a value of `type` from `data`.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONDecoder: DecoderType {}

extension DecoderType {
    /// A 2xx body as an endpoint's `Response`: `nil` when the body is empty and `Response` is
    /// optional (a 204 answering a `User?`), as Get's client does; otherwise decoded with this
    /// decoder, which fails on an empty body as JSON does. A `String` that JSON cannot decode (a
    /// plain-text body) is the body's UTF-8 text, as Get and Alamofire read it; a JSON string still
    /// decodes as JSON, as in Endpoints 0.4.
    func decodeResponseBody<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if data.isEmpty, let none = (T.self as? any OptionalResponse.Type)?.none as? T { return none }
        do {
            return try decode(type, from: data)
        } catch {
            guard let text = plainText(data, as: T.self) else { throw error }
            return text
        }
    }

    /// A non-2xx body as an endpoint's `ErrorResponse`: the bytes as received when that is `Data`,
    /// as a `Response` of `Data` is, and otherwise decoded with this decoder; a `String` that JSON
    /// cannot decode (an HTML error page) is the body's UTF-8 text, as for a `Response`.
    func decodeErrorBody<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let raw = data as? T { return raw }
        do {
            return try decode(type, from: data)
        } catch {
            guard let text = plainText(data, as: T.self) else { throw error }
            return text
        }
    }

    /// `data` as `T` when `T` is `String`, this is a `JSONDecoder` (which could not decode it) and
    /// the bytes are valid UTF-8; `nil` otherwise, so bytes that are not text stay a failure.
    private func plainText<T>(_ data: Data, as type: T.Type) -> T? {
        guard T.self == String.self, self is JSONDecoder else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard text.utf8.elementsEqual(data) else { return nil }
        return text as? T
    }
}

/// The coders the defaults hand out. Creating a `JSONEncoder` per request is measurable, so one
/// instance of each is shared where the type is `Sendable`.
///
/// `JSONEncoder` and `JSONDecoder` conform to `Sendable` only from macOS 13, iOS 16, tvOS 16 and
/// watchOS 9 (the SDKs' conformance carries that availability; earlier SDKs have none), so a
/// shared instance is only handed out there, where the conformance makes it safe: nobody mutates
/// the shared instances (they are internal and never configured), and each call copies the
/// options it uses. On macOS 12, iOS 15, tvOS 15 and watchOS 8 each use gets a fresh instance.
/// Linux's Foundation declares both `Sendable` unconditionally.
enum SharedCoders {
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    private static let sharedEncoder = JSONEncoder()
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    private static let sharedDecoder = JSONDecoder()

    static var jsonEncoder: JSONEncoder {
        if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) { sharedEncoder } else { JSONEncoder() }
    }

    static var jsonDecoder: JSONDecoder {
        if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) { sharedDecoder } else { JSONDecoder() }
    }
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

/// An optional `Response`, which an empty body decodes to `nil`.
private protocol OptionalResponse {
    static var none: Self { get }
}

extension Optional: OptionalResponse {}
