import Foundation

/// A JSON part of a multipart body: wrap an `Encodable` property in it and
/// ``MultipartFormEncoder`` sends the value as one `application/json` part, with or without a
/// file name.
///
/// ```swift
/// struct Upload: Encodable, Sendable {
///     struct Metadata: Encodable, Sendable { let owner: String; let priority: Int }
///     let file: MultipartForm.File
///     let metadata: MultipartFormJSON<Metadata>
/// }
///
/// let body = Upload(
///     file: MultipartForm.File(filename: "a.txt", contentType: "text/plain", data: Data("hi".utf8)),
///     metadata: MultipartFormJSON(Upload.Metadata(owner: "zac", priority: 1))
/// )
/// ```
///
/// The value is encoded when the wrapper is created, with the `JSONEncoder` you pass; an error
/// it throws is thrown when the body is encoded. Other encoders (such as `JSONEncoder`) see the
/// wrapped value itself.
public struct MultipartFormJSON<Value: Encodable & Sendable>: Encodable, Sendable {
    /// The wrapped value.
    let wrapped: Value
    /// The file name sent with the part, or `nil` for a plain field.
    let partFileName: String?
    /// The part's `Content-Type`, `application/json` unless given.
    let partContentType: String

    let json: Result<Data, UnderlyingError>

    /// Wraps `value`, encoding it with `encoder` now.
    /// - Parameters:
    ///   - value: The value sent as JSON.
    ///   - encoder: The encoder for `value`; a new `JSONEncoder` unless given.
    ///   - fileName: The part's file name; `nil` (or empty) sends a plain field.
    ///   - contentType: The part's media type.
    public init(
        _ value: Value,
        encoder: JSONEncoder = JSONEncoder(),
        fileName: String? = nil,
        contentType: String = "application/json"
    ) {
        self.wrapped = value
        self.partFileName = fileName?.isEmpty == false ? fileName : nil
        self.partContentType = contentType
        do {
            json = .success(try encoder.encode(value))
        } catch {
            json = .failure(UnderlyingError(error))
        }
    }

    /// Encodes the wrapped value, for encoders other than ``MultipartFormEncoder``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrapped)
    }
}

extension MultipartFormJSON: MultipartPartValue {
    func multipartPart(name: String) throws -> MultipartForm.Part {
        switch json {
        case .success(let data):
            MultipartForm.Part(name: name, filename: partFileName, contentType: partContentType, data: data)
        case .failure(let failure):
            throw failure.error
        }
    }
}
