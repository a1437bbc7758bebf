import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The UTF-8 bytes of the pieces, joined.
private func utf8(_ pieces: String...) -> Data { Data(pieces.joined().utf8) }

@Suite struct MultipartFormEncoderTests {
    struct Upload: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Void
        typealias Body = MultipartForm
        typealias BodyEncoder = MultipartFormEncoder
        static let definition: Definition<Upload> = Definition(method: .post, path: "uploads")
        static var bodyEncoder: MultipartFormEncoder { MultipartFormEncoder(boundary: "XyZ-boundary") }
        let body: MultipartForm
    }

    struct RandomUpload: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Void
        typealias BodyEncoder = MultipartFormEncoder
        static let definition: Definition<RandomUpload> = Definition(method: .post, path: "echo")
        static var bodyEncoder: MultipartFormEncoder { MultipartFormEncoder() }
        let body: MultipartForm
    }

    struct Profile: Encodable, Sendable {
        enum Kind: String, Encodable { case person }
        let name: String
        let age: Int
        let nickname: String?
        let kind: Kind
        let tags: [String]
        let avatar: MultipartForm.File
        let raw: Data
    }

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

    @Test func multipartBodyIsByteExact() throws {
        let form: MultipartForm = [
            .field(name: "title", value: "Holiday ü"),
            .field(name: "count", value: 3),
            .file(name: "image", filename: "me.png", contentType: "image/png", data: Self.png),
        ]
        let request = try Upload(body: form).urlRequest()
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=XyZ-boundary")
        var expected = utf8(
            "--XyZ-boundary\r\n",
            "Content-Disposition: form-data; name=\"title\"\r\n\r\n",
            "Holiday ü\r\n",
            "--XyZ-boundary\r\n",
            "Content-Disposition: form-data; name=\"count\"\r\n\r\n",
            "3\r\n",
            "--XyZ-boundary\r\n",
            "Content-Disposition: form-data; name=\"image\"; filename=\"me.png\"\r\n",
            "Content-Type: image/png\r\n\r\n"
        )
        expected.append(Self.png)
        expected.append(utf8("\r\n--XyZ-boundary--\r\n"))
        #expect(request.httpBody == expected)
    }

    @Test func namesAndFilenamesAreEscapedPerRFC7578() throws {
        let form: MultipartForm = [
            .file(name: "a\"b\r\nX-Injected: 1", filename: "evil\".png\r\n\r\n--XyZ-boundary", data: Data("x".utf8))
        ]
        let body = String(decoding: try MultipartFormEncoder(boundary: "XyZ-boundary").encode(form), as: UTF8.self)
        let expected = utf8(
            "--XyZ-boundary\r\n",
            "Content-Disposition: form-data; name=\"a%22b%0D%0AX-Injected: 1\"; ",
            "filename=\"evil%22.png%0D%0A%0D%0A--XyZ-boundary\"\r\n",
            "Content-Type: application/octet-stream\r\n\r\n",
            "x\r\n--XyZ-boundary--\r\n"
        )
        #expect(Data(body.utf8) == expected)
    }

    @Test func encodableStructPropertiesBecomeFieldsAndFiles() throws {
        let profile = Profile(
            name: "Zoë",
            age: 30,
            nickname: nil,
            kind: .person,
            tags: ["a", "b"],
            avatar: MultipartForm.File(filename: "a.png", contentType: "image/png", data: Self.png),
            raw: Data([1, 2])
        )
        let data = try MultipartFormEncoder(boundary: "b").encode(profile)
        var expected = utf8(
            "--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nZoë\r\n",
            "--b\r\nContent-Disposition: form-data; name=\"age\"\r\n\r\n30\r\n",
            "--b\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nperson\r\n",
            "--b\r\nContent-Disposition: form-data; name=\"tags[0]\"\r\n\r\na\r\n",
            "--b\r\nContent-Disposition: form-data; name=\"tags[1]\"\r\n\r\nb\r\n",
            "--b\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"a.png\"\r\n",
            "Content-Type: image/png\r\n\r\n"
        )
        expected.append(Self.png)
        expected.append(
            utf8(
                "\r\n--b\r\nContent-Disposition: form-data; name=\"raw\"; filename=\"raw\"\r\n",
                "Content-Type: application/octet-stream\r\n\r\n"
            )
        )
        expected.append(contentsOf: [1, 2])
        expected.append(utf8("\r\n--b--\r\n"))
        #expect(data == expected)
    }

    @Test func nestedObjectsAreNamedWithBrackets() throws {
        // Endpoints 0.4's names: `inner[a]`, `inner[list][0]`.
        struct Nested: Encodable {
            struct Inner: Encodable {
                let a: Int
                let list: [String]
            }
            let inner: Inner
        }
        let data = try MultipartFormEncoder(boundary: "b").encode(Nested(inner: .init(a: 1, list: ["x"])))
        let expected = utf8(
            "--b\r\nContent-Disposition: form-data; name=\"inner[a]\"\r\n\r\n1\r\n",
            "--b\r\nContent-Disposition: form-data; name=\"inner[list][0]\"\r\n\r\nx\r\n",
            "--b--\r\n"
        )
        #expect(data == expected)
    }

    @Test func bracketedNamesAreRedactedLikeTheirParts() throws {
        // Nested and array names must not hide a secret from the log's redaction.
        struct Login: Encodable {
            struct User: Encodable { let name: String; let password: String }
            let user: User
            let refreshToken: [String]
        }
        #expect(Redaction.standard.hidesField("user[password]"))
        #expect(Redaction.standard.hidesField("refresh_token[0]"))
        #expect(!Redaction.standard.hidesField("user[name]"))
        let body = try MultipartFormEncoder(boundary: "b").encode(
            Login(user: .init(name: "zac", password: "hunter2"), refreshToken: ["t0ken"])
        )
        let shown = String(
            decoding: Redaction.standard.redactedBody(body, contentType: "multipart/form-data; boundary=b"),
            as: UTF8.self)
        #expect(shown.contains("zac"))
        #expect(!shown.contains("hunter2"))
        #expect(!shown.contains("t0ken"))
    }

    @Test func repeatedNameArraysAreAnOption() throws {
        struct Tags: Encodable { let tags: [String] }
        let encoder = MultipartFormEncoder(boundary: "b", arrayEncoding: .repeatedName)
        let expected = utf8(
            "--b\r\nContent-Disposition: form-data; name=\"tags\"\r\n\r\na\r\n",
            "--b\r\nContent-Disposition: form-data; name=\"tags\"\r\n\r\nb\r\n",
            "--b--\r\n"
        )
        #expect(try encoder.encode(Tags(tags: ["a", "b"])) == expected)
    }

    @Test func aBodyWithoutFieldNamesIsRefused() {
        #expect(throws: MultipartFormEncoder.Failure.unsupportedValue(name: "(top level)")) {
            try MultipartFormEncoder(boundary: "b").encode(["a", "b"])
        }
    }

    @Test func contentTypeWithLineBreaksIsRefused() {
        let form: MultipartForm = [.file(name: "f", filename: "f", contentType: "text/plain\r\nX: 1", data: Data())]
        #expect(throws: MultipartFormEncoder.Failure.invalidContentType(name: "f")) {
            try MultipartFormEncoder(boundary: "b").encode(form)
        }
    }

    @Test func contentContainingTheBoundaryIsRefused() {
        let inside: MultipartForm = [.field(name: "f", value: "x\r\n--b--\r\n")]
        #expect(throws: MultipartFormEncoder.Failure.boundaryInContent(name: "f")) {
            try MultipartFormEncoder(boundary: "b").encode(inside)
        }
        let leading: MultipartForm = [.field(name: "g", value: "--b")]
        #expect(throws: MultipartFormEncoder.Failure.boundaryInContent(name: "g")) {
            try MultipartFormEncoder(boundary: "b").encode(leading)
        }
    }

    @Test(arguments: ["", String(repeating: "a", count: 71), "a\r\nb", "ends with space ", "semi;colon", "quote\""])
    func invalidBoundariesAreRefused(boundary: String) {
        #expect(throws: MultipartFormEncoder.Failure.invalidBoundary(boundary)) {
            try MultipartFormEncoder(boundary: boundary).encode(MultipartForm([]))
        }
    }

    @Test func boundaryOutsideTokenSyntaxIsQuotedInTheContentType() {
        #expect(MultipartFormEncoder(boundary: "a:b").contentType == "multipart/form-data; boundary=\"a:b\"")
        #expect(MultipartFormEncoder(boundary: "ab").contentType == "multipart/form-data; boundary=ab")
    }

    @Test func randomBoundariesDifferAndAreValid() {
        let first = MultipartFormEncoder().partBoundary
        let second = MultipartFormEncoder().partBoundary
        #expect(first != second)
        #expect(first.count <= 70 && first.count >= 27)
        #expect(first.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
    }

    @Test func encoderErrorSurfacesAsBodyEncodingFailed() {
        let failure = MultipartFormEncoder.Failure.invalidContentType(name: "f")
        let form: MultipartForm = [.file(name: "f", filename: "f", contentType: "a\nb", data: Data())]
        let error = #expect(throws: EndpointError.bodyEncodingFailed(UnderlyingError(failure))) {
            try Upload(body: form).urlRequest()
        }
        // The failure is internal: a caller reads its sentence in the error's description.
        #expect(failure.description.hasSuffix("remove those characters."))
        #expect(error?.description.contains(failure.description) == true)
        #expect(
            error?.description
                == "The body could not be encoded (The content type of the part 'f' contains CR, LF or NUL; remove those characters.); check the body's Encodable conformance and the encoder."
        )
    }

    @Test func serverReceivesTheBodyAndBoundaryIntact() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let form: MultipartForm = [
            .field(name: "note", value: "a\r\nb"),
            .file(name: "blob", filename: "b.bin", data: Data((0...255).map { UInt8($0) })),
        ]
        let request = try RandomUpload(body: form).urlRequest(environment: .local)
        let contentType = try #require(request.value(forHTTPHeaderField: "Content-Type"))
        let received = try await sendToTestServer(request, server: server)
        #expect(received.header("content-type") == contentType)
        #expect(received.body == request.httpBody)
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        let body = received.body
        #expect(body.starts(with: Data("--\(boundary)\r\n".utf8)))
        #expect(body.suffix(boundary.utf8.count + 6) == Data("--\(boundary)--\r\n".utf8))
    }
}
