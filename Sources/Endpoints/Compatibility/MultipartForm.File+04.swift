import Foundation

/// Endpoints 0.4's name for a file in an `Encodable` multipart body; the same type as
/// ``MultipartForm/File``.
///
/// ```swift
/// let file = MultipartForm.File(filename: "greeting.txt", contentType: "text/plain", data: Data("hello".utf8))
/// ```
@available(*, deprecated, renamed: "MultipartForm.File")
public typealias MultipartFormFile = MultipartForm.File

extension MultipartForm.File {
    /// Creates a file value with Endpoints 0.4's argument order.
    ///
    /// ```swift
    /// MultipartForm.File(filename: "me.png", contentType: "image/png", data: png)
    /// ```
    @available(
        *,
        deprecated,
        message: "Write MultipartForm.File(filename:contentType:data:), with the file name first and the data last."
    )
    public init(data: Data, fileName: String, contentType: String) {
        self.init(filename: fileName, contentType: contentType, data: data)
    }

    /// The file name, as Endpoints 0.4 read it.
    @available(
        *,
        deprecated,
        message:
            "A MultipartForm.File is not read back: keep the file name you pass to MultipartForm.File(filename:contentType:data:)."
    )
    public var fileName: String { filename }

    /// The file's media type, as Endpoints 0.4 read it.
    @available(
        *,
        deprecated,
        message:
            "A MultipartForm.File is not read back: keep the content type you pass to MultipartForm.File(filename:contentType:data:)."
    )
    public var contentType: String { mediaType }

    /// The file's content, as Endpoints 0.4 read it.
    @available(
        *,
        deprecated,
        message:
            "A MultipartForm.File is not read back: keep the data you pass to MultipartForm.File(filename:contentType:data:)."
    )
    public var data: Data { content }
}
