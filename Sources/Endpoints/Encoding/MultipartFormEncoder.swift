import Foundation

/// Encodes a body as `multipart/form-data` (RFC 7578), for file uploads.
///
/// The body is a ``MultipartForm`` (fields and files, in order) or any `Encodable` struct whose
/// properties become fields, named as Endpoints 0.4 named them: `Data` and ``MultipartForm/File``
/// properties become files, ``MultipartFormJSON`` a JSON part, a nested object's properties
/// `outer[inner]`, array elements `tags[0]`, `tags[1]` (see ``ArrayEncoding``), and `nil` leaves
/// the field out.
///
/// ```swift
/// struct UploadAvatar: Endpoint {
///     typealias Server = ApiServer
///     typealias Response = Void
///     typealias BodyEncoder = MultipartFormEncoder
///     static let definition: Definition<UploadAvatar> = Definition(method: .post, path: "avatar")
///     static var bodyEncoder: MultipartFormEncoder { MultipartFormEncoder() }
///
///     let body: MultipartForm
/// }
/// ```
///
/// Each encoder has one boundary, random unless you pass one (tests pass a fixed boundary to
/// compare bodies byte for byte). Field names and file names have `"`, CR and LF escaped as
/// `%22`, `%0D` and `%0A`, so no value can add a header or end a part early; a content type
/// containing CR, LF or NUL, or content containing the boundary, is refused: sending throws
/// ``EndpointError/bodyEncodingFailed(_:)``, whose description carries a sentence that says what to
/// fix.
public struct MultipartFormEncoder: EncoderType, Sendable {
    /// Why a body could not be encoded as `multipart/form-data`; callers see it through
    /// ``EndpointError/bodyEncodingFailed(_:)`` and its sentence.
    enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The boundary is empty, longer than 70 characters, or uses characters RFC 2046 does not allow.
        case invalidBoundary(String)
        /// A part's content type contains CR, LF or NUL.
        case invalidContentType(name: String)
        /// A part's content contains the boundary, which would end the part early.
        case boundaryInContent(name: String)
        /// The body is not an object with named properties (an array or a single value has no field names).
        case unsupportedValue(name: String)

        /// A sentence that says what went wrong and what to fix.
        var description: String {
            switch self {
            case .invalidBoundary(let boundary):
                "The multipart boundary '\(boundary.debugDescription.dropFirst().dropLast())' is not valid; use 1 to 70 letters, digits or '()+_,-./:=?."
            case .invalidContentType(let name):
                "The content type of the part '\(name)' contains CR, LF or NUL; remove those characters."
            case .boundaryInContent(let name):
                "The content of the part '\(name)' contains the multipart boundary; use another boundary."
            case .unsupportedValue(let name):
                "The value '\(name)' cannot be a multipart body; use a struct whose properties are the fields, or a MultipartForm."
            }
        }
    }

    /// How the elements of an array property are named.
    public enum ArrayEncoding: Sendable, Equatable {
        /// `tags[0]`, `tags[1]`: Endpoints 0.4's names, which PHP, Rails and Express parse back into
        /// an array. The default.
        case indexed
        /// `tags`, `tags`: the name repeated, as an HTML form with several values sends it.
        case repeatedName
    }

    /// The boundary between parts, without the leading `--`; ``contentType-swift.property`` carries it.
    let partBoundary: String

    /// How array elements are named; ``ArrayEncoding/indexed`` unless given.
    let arrayEncoding: ArrayEncoding

    /// Creates an encoder with a random boundary, or with `boundary` when given.
    ///
    /// ```swift
    /// static var bodyEncoder: MultipartFormEncoder { MultipartFormEncoder(arrayEncoding: .repeatedName) }
    /// ```
    /// - Parameters:
    ///   - boundary: 1 to 70 characters from RFC 2046 `bchars` (letters, digits and
    ///     `'()+_,-./:=?` and space, not ending in a space).
    ///   - arrayEncoding: How array elements are named: `tags[0]` (the default) or `tags`.
    public init(boundary: String? = nil, arrayEncoding: ArrayEncoding = .indexed) {
        self.partBoundary = boundary ?? Self.randomBoundary()
        self.arrayEncoding = arrayEncoding
    }

    /// `multipart/form-data; boundary=...`, quoting the boundary when it is not an HTTP token.
    public var contentType: String? {
        let quoted = HTTPToken.isValid(partBoundary) ? partBoundary : "\"\(partBoundary)\""
        return "multipart/form-data; boundary=\(quoted)"
    }

    /// Encodes a ``MultipartForm``, or the top-level properties of any other `Encodable` value;
    /// throws an error whose description says what to fix when the result would not be a valid
    /// body (a bad boundary, a content type with a line break, content containing the boundary,
    /// a value without field names).
    ///
    /// ```swift
    /// let form: MultipartForm = [.field(name: "title", value: "Holiday")]
    /// let body = try MultipartFormEncoder(boundary: "b").encode(form)
    /// ```
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let form =
            try (value as? MultipartForm)
            ?? MultipartForm(MultipartPartsEncoder.parts(of: value, arrays: arrayEncoding))
        return try write(form)
    }

    /// Writes `form` with this encoder's boundary.
    func write(_ form: MultipartForm) throws(Failure) -> Data {
        let boundary = partBoundary
        guard Self.isValidBoundary(boundary) else { throw .invalidBoundary(boundary) }
        let delimiter = Data("\r\n--\(boundary)".utf8)
        var output = Data()
        output.reserveCapacity(form.parts.reduce(64) { $0 + $1.data.count + 128 })
        for part in form.parts {
            if let contentType = part.contentType, !HTTPToken.isValidFieldValue(contentType) {
                throw .invalidContentType(name: part.name)
            }
            if part.data.range(of: delimiter) != nil || part.data.starts(with: delimiter.dropFirst(2)) {
                throw .boundaryInContent(name: part.name)
            }
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(part.name))\""
            if let filename = part.filename {
                head += "; filename=\"\(Self.escape(filename))\""
            }
            head += "\r\n"
            if let contentType = part.contentType {
                head += "Content-Type: \(contentType)\r\n"
            }
            head += "\r\n"
            output.append(contentsOf: head.utf8)
            output.append(part.data)
            output.append(contentsOf: "\r\n".utf8)
        }
        output.append(contentsOf: "--\(boundary)--\r\n".utf8)
        return output
    }

    /// Escapes a name or file name for a quoted `Content-Disposition` parameter, as browsers do
    /// (RFC 7578 §2, WHATWG HTML): `"` → `%22`, CR → `%0D`, LF → `%0A`.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else { return text }
        var output = ""
        output.reserveCapacity(text.utf8.count + 6)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output.append("%22")
            case "\r": output.append("%0D")
            case "\n": output.append("%0A")
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// RFC 2046 §5.1.1: 1–70 `bchars`, not ending in a space.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let bytes = boundary.utf8
        guard (1...70).contains(bytes.count), bytes.last != UInt8(ascii: " ") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            case UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "+"), UInt8(ascii: "_"),
                UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"),
                UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: " "):
                true
            default:
                false
            }
        }
    }

    private static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var bytes = Array("Endpoints-".utf8)
        for _ in 0..<32 {
            bytes.append(hex[Int(generator.next(upperBound: UInt8(16)))])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
