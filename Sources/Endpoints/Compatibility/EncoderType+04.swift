import Foundation

// Endpoints 0.4 declared an encoder's content type per type, `static var contentType`. It stays a
// requirement of `EncoderType`, so a 0.4 encoder's own declaration is still sent by the default
// instance `contentType`; it is deprecated, with its default and the built-in encoders' values here.

extension EncoderType {
    /// No content type: the default of Endpoints 0.4's per-type content type.
    @available(
        *,
        deprecated,
        message: "Implement or read the instance property `var contentType: String?`, which is what Endpoints sends."
    )
    public static var contentType: String? { nil }
}

extension JSONEncoder {
    /// `application/json`.
    @available(*, deprecated, message: "Read the instance property: JSONEncoder().contentType.")
    public static var contentType: String? { "application/json" }
}

extension MultipartFormEncoder {
    /// `multipart/form-data`, without the boundary (which ``contentType-swift.property`` adds).
    @available(
        *,
        deprecated,
        message: "Read the instance property, which includes the boundary: MultipartFormEncoder().contentType."
    )
    public static var contentType: String? { "multipart/form-data" }
}

/// How the default instance ``EncoderType/contentType-swift.property`` reaches the 0.4 per-type one.
///
/// Its only conformer's witness is deprecated like the requirement it reads, so the core refers to
/// no deprecated declaration. Without this folder the default would be `nil`.
protocol EncoderType04Forwarding: Sendable {
    /// `Encoder`'s 0.4 `static var contentType`.
    func contentType<Encoder: EncoderType>(of encoder: Encoder.Type) -> String?
}

/// The forwarding to Endpoints 0.4's per-type content type.
struct EncoderContentType04: EncoderType04Forwarding {
    @available(*, deprecated, message: "Forwards to Endpoints 0.4's per-type content type.")
    func contentType<Encoder: EncoderType>(of encoder: Encoder.Type) -> String? { Encoder.contentType }
}

extension Compatibility04 {
    /// The default instance content type of an ``EncoderType`` reads the 0.4 one through it.
    static let encoders: any EncoderType04Forwarding = EncoderContentType04()
}
