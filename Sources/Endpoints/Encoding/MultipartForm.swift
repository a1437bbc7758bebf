import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and files, in order.
///
/// Use it as an endpoint's ``Endpoint/Body`` with ``MultipartFormEncoder``:
///
/// ```swift
/// struct UploadAvatar: Endpoint {
///     typealias Server = ApiServer
///     typealias Response = Void
///     typealias Body = MultipartForm
///     typealias BodyEncoder = MultipartFormEncoder
///
///     static let definition: Definition<UploadAvatar> = Definition(method: .post, path: "avatar")
///     static var bodyEncoder: MultipartFormEncoder { MultipartFormEncoder() }
///
///     let image: Data
///     var body: MultipartForm {
///         [
///             .field(name: "caption", value: "Me, on a hill"),
///             .file(name: "image", filename: "me.png", contentType: "image/png", data: image),
///         ]
///     }
/// }
/// ```
///
/// Any other `Encodable` body works with ``MultipartFormEncoder`` too: each top-level property
/// becomes a field, and `Data` or ``File`` properties become files.
public struct MultipartForm: Encodable, Sendable, Equatable, ExpressibleByArrayLiteral {
    /// One part of the form: a text field or a file.
    ///
    /// Made with ``field(name:value:)`` or ``file(name:filename:contentType:data:)``; two parts are
    /// equal when they write the same bytes.
    public struct Part: Sendable, Equatable {
        /// The form field name, unescaped; `"` and line breaks are escaped when written.
        let name: String
        /// The file name sent with a file, or `nil` for a text field.
        let filename: String?
        /// The part's `Content-Type`, or `nil` for a text field (which is `text/plain`).
        let contentType: String?
        /// The part's content.
        let data: Data

        /// A text field, sent as UTF-8: a `String`, or any other ``ParameterRepresentable`` value
        /// (numbers, `Bool`, `Date`, `UUID`...) as its parameter text. A value whose text is `nil`
        /// is sent as an empty field.
        ///
        /// ```swift
        /// .field(name: "title", value: "Holiday")
        /// .field(name: "count", value: 3)
        /// ```
        public static func field<Value: ParameterRepresentable>(name: String, value: Value) -> Part {
            Part(name: name, filename: nil, contentType: nil, data: Data((value.parameterValue ?? "").utf8))
        }

        /// A file with its file name and media type.
        ///
        /// ```swift
        /// .file(name: "image", filename: "me.png", contentType: "image/png", data: png)
        /// ```
        public static func file(
            name: String,
            filename: String,
            contentType: String = "application/octet-stream",
            data: Data
        ) -> Part {
            Part(name: name, filename: filename, contentType: contentType, data: data)
        }
    }

    /// A file value for an `Encodable` body encoded with ``MultipartFormEncoder``.
    ///
    /// ```swift
    /// struct Upload: Encodable, Sendable {
    ///     let title: String
    ///     let attachment: MultipartForm.File
    /// }
    /// ```
    ///
    /// Other encoders (such as `JSONEncoder`) see an object with `filename`, `contentType` and `data`.
    public struct File: Encodable, Sendable, Equatable {
        /// The file name sent with the file.
        let filename: String
        /// The file's media type.
        let mediaType: String
        /// The file's content.
        let content: Data

        /// Creates a file value.
        public init(filename: String, contentType: String = "application/octet-stream", data: Data) {
            self.filename = filename
            self.mediaType = contentType
            self.content = data
        }

        /// The keys other encoders see, the names of `init`'s arguments.
        private enum CodingKeys: String, CodingKey {
            case filename
            case mediaType = "contentType"
            case content = "data"
        }
    }

    /// The parts, in the order they are written.
    var parts: [Part]

    /// Creates a form from its parts.
    public init(_ parts: [Part]) { self.parts = parts }

    /// Creates a form from an array literal of parts.
    public init(arrayLiteral parts: Part...) { self.parts = parts }

    /// Writes the parts as a list of objects, for encoders other than ``MultipartFormEncoder``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for part in parts {
            try container.encode(EncodedPart(part: part))
        }
    }

    private struct EncodedPart: Encodable {
        let part: Part

        enum CodingKeys: String, CodingKey { case name, filename, contentType, data }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(part.name, forKey: .name)
            try container.encodeIfPresent(part.filename, forKey: .filename)
            try container.encodeIfPresent(part.contentType, forKey: .contentType)
            try container.encode(part.data, forKey: .data)
        }
    }
}
