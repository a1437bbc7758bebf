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

    /// The file name; Endpoints 0.4's spelling of ``filename``.
    @available(*, deprecated, renamed: "filename")
    public var fileName: String { filename }
}
