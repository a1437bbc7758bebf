import Foundation

// Endpoints 0.4 let code read back what it put in a multipart value: a JSON part's value, file
// name and content type, and an encoder's boundary. Nothing needs them (the encoder writes them,
// and `contentType` carries the boundary), so they are no longer public; these keep 0.4 code
// compiling, with a warning. `MultipartFormFile`'s are in `MultipartForm.File+04.swift`.

extension MultipartFormJSON {
    /// The wrapped value, as Endpoints 0.4 read it.
    @available(
        *,
        deprecated,
        message: "A MultipartFormJSON is not read back: keep the value you pass to MultipartFormJSON(_:)."
    )
    public var value: Value { wrapped }

    /// The part's file name, as Endpoints 0.4 read it.
    @available(
        *,
        deprecated,
        message: "A MultipartFormJSON is not read back: keep the file name you pass to MultipartFormJSON(_:fileName:)."
    )
    public var fileName: String? { partFileName }

    /// The part's content type, as Endpoints 0.4 read it.
    @available(
        *,
        deprecated,
        message:
            "A MultipartFormJSON is not read back: keep the content type you pass to MultipartFormJSON(_:contentType:)."
    )
    public var contentType: String { partContentType }
}

extension MultipartFormEncoder {
    /// The boundary between parts, as Endpoints 0.4 read it.
    @available(
        *,
        deprecated,
        message:
            "Read the boundary from contentType (multipart/form-data; boundary=…), or pass your own to MultipartFormEncoder(boundary:)."
    )
    public var boundary: String { partBoundary }
}
