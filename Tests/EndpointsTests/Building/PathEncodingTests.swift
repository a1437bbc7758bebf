import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct PathEncodingTests {
    private func path(_ value: String) throws -> String {
        let url = try #require(try BuildingSegment(value).urlRequest().url)
        let text = url.absoluteString
        let prefix = "https://api.example.com/v1/items/"
        #expect(text.hasPrefix(prefix))
        return String(text.dropFirst(prefix.count))
    }

    // RFC 3986 §3.3: a value is one segment; every reserved or non-ASCII byte is escaped.
    @Test(arguments: [
        ("a/b", "a%2Fb"), ("?", "%3F"), ("#", "%23"), ("%", "%25"), (" ", "%20"), ("é", "%C3%A9"),
        ("a b/c?d#e", "a%20b%2Fc%3Fd%23e"), ("日本", "%E6%97%A5%E6%9C%AC"), ("🙂", "%F0%9F%99%82"),
        ("\u{0}", "%00"), ("\n", "%0A"), ("+", "%2B"), ("&", "%26"), ("=", "%3D"), (";", "%3B"),
        ("\\", "%5C"), ("...", "..."), (".a", ".a"), ("a..b", "a..b"),
    ])
    func reservedAndNonASCIIBytesAreEscaped(value: String, expected: String) throws {
        #expect(try path(value) == expected)
    }

    @Test func unreservedCharactersAreNeverEncoded() throws {
        let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        #expect(try path(unreserved) == unreserved)
    }

    @Test func hexIsUpperCaseAndNothingIsEncodedTwice() throws {
        #expect(try path("ÿ") == "%C3%BF")
        #expect(try path("%41") == "%2541")
        #expect(try path("%2F") == "%252F")
        #expect(try path("a%20b") == "a%2520b")
    }

    @Test func everyByteOutsideUnreservedIsEscaped() throws {
        for byte in UInt8(0x20)...UInt8(0x7E) {
            let scalar = Character(Unicode.Scalar(byte))
            let isUnreserved = scalar.isASCII && (scalar.isLetter || scalar.isNumber || "-._~".contains(scalar))
            let expected = isUnreserved ? String(scalar) : String(format: "%%%02X", byte)
            let value = "x\(scalar)x"
            #expect(try path(value) == "x\(expected)x", "byte 0x\(String(byte, radix: 16))")
        }
    }

    // RFC 6570 §3.2.2 simple string expansion, the variables of §3.2.
    @Test(arguments: [
        ("value", "value"), ("Hello World!", "Hello%20World%21"), ("50%", "50%25"),
        ("http://example.com/home/", "http%3A%2F%2Fexample.com%2Fhome%2F"), ("/foo/bar", "%2Ffoo%2Fbar"),
        ("fred", "fred"), ("1024", "1024"), ("768", "768"), ("foo/bar", "foo%2Fbar"),
    ])
    func rfc6570SimpleExpansion(value: String, expected: String) throws {
        #expect(try path(value) == expected)
    }

    @Test(arguments: ["", ".", ".."])
    func emptyAndDotSegmentsAreRefused(value: String) {
        #expect(throws: EndpointError.invalidPathValue("value", value: value)) {
            try BuildingSegment(value).urlRequest()
        }
    }

    @Test func builtPathDecodesBackToTheValue() throws {
        for value in hostileStrings where !["", ".", ".."].contains(value) {
            let url = try #require(try BuildingSegment(value).urlRequest().url)
            let encodedPath = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
            let segments = encodedPath.split(separator: "/", omittingEmptySubsequences: false)
            #expect(segments.count == 4, "\(value.debugDescription) split the path: \(url.absoluteString)")
            #expect(segments.last.flatMap { $0.removingPercentEncoding } == value)
        }
    }
}

@Suite struct BaseURLPathTests {
    struct Leading: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        static let definition: Definition<Leading> = Definition(path: "/users")
    }

    struct Plain: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        static let definition: Definition<Plain> = Definition(path: "users")
    }

    struct Root: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        static let definition: Definition<Root> = Definition(path: "")
    }

    @Test func baseURLPathIsKeptWithoutTrailingSlash() throws {
        #expect(try Plain().urlRequest().url?.absoluteString == "https://api.example.com/v1/users")
    }

    @Test func baseURLPathIsKeptWithTrailingSlash() throws {
        #expect(
            try Plain().urlRequest(environment: .staging).url?.absoluteString == "https://staging.example.com/v1/users")
    }

    @Test func leadingSlashInTemplateKeepsThePrefix() throws {
        #expect(try Leading().urlRequest().url?.absoluteString == "https://api.example.com/v1/users")
        #expect(
            try Leading().urlRequest(environment: .staging).url?.absoluteString
                == "https://staging.example.com/v1/users")
    }

    @Test func emptyTemplateIsTheBaseURL() throws {
        #expect(try Root().urlRequest().url?.path == "/v1")
    }
}

@Suite struct BaseURLQueryTests {
    struct KeyedServer: ServerDefinition {
        var baseUrls: [Environments: URL] {
            [
                .production: URL(string: "https://api.example.com/v1/?api-version=2")!,
                .staging: URL(string: "https://api.example.com/v1?api-version=2")!,
            ]
        }
    }

    struct Search: Endpoint {
        typealias Server = KeyedServer
        typealias Response = Data
        static let definition: Definition<Search> = Definition(
            path: "search",
            parameters: [.queryValue("q", value: "a b")]
        )
    }

    @Test func pathGoesBeforeTheBaseURLsQuery() throws {
        let expected = "https://api.example.com/v1/search?api-version=2&q=a%20b"
        #expect(try Search().urlRequest().url?.absoluteString == expected)
        #expect(try Search().urlRequest(environment: .staging).url?.absoluteString == expected)
    }

    @Test func invalidURLDescriptionLeavesTheQueryOut() {
        let description = EndpointError.invalidURL("https://api.example.com/v1?key=sk_secret").description
        #expect(!description.contains("sk_secret"))
        #expect(description.contains("https://api.example.com/v1"))
    }
}
