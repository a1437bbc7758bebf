import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The method, URL, headers (sorted by name) and body of a request, as text to compare whole.
func snapshot(_ request: URLRequest) -> String {
    var lines = ["\(request.httpMethod ?? "?") \(request.url?.absoluteString ?? "?")"]
    let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
    lines += headers.map { "\($0.key): \($0.value)" }
    lines.append("")
    lines.append(request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? "")
    return lines.joined(separator: "\n")
}

extension Header {
    fileprivate static let requestId: Header = "X-Request-Id"
}

@Suite struct RequestSnapshotTests {
    struct GetPost: Endpoint {
        typealias Server = BuildingServer
        struct Response: Decodable { let id: Int }
        struct PathComponents: Sendable {
            let userId: Int
            let postId: String
        }
        struct ParameterComponents: Sendable {
            let query: String
            let page: Int?
            let tags: [String]
        }
        struct HeaderComponents: Sendable { let requestId: UUID }

        static let definition: Definition<GetPost> = Definition(
            method: .get,
            path: "users/\(path: \.userId)/posts/\(path: \.postId)",
            parameters: [.query("q", path: \.query), .query("page", path: \.page), .query("tag", path: \.tags)],
            headers: [Header.requestId.value(path: \.requestId), Header.accept.value("application/json")]
        )

        let pathComponents: PathComponents
        let parameterComponents: ParameterComponents
        let headerComponents: HeaderComponents
    }

    struct CreatePost: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Void
        struct Body: Encodable, Sendable {
            let title: String
            let tags: [String]
            let draft: Bool
            let author: Author
        }
        struct Author: Encodable, Sendable {
            let name: String
            let id: Int
        }
        static let definition: Definition<CreatePost> = Definition(method: .post, path: "posts")
        static var bodyEncoder: JSONEncoder {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return encoder
        }
        let body: Body
    }

    struct CreateVendorPost: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Void
        static let definition: Definition<CreateVendorPost> = Definition(
            method: .put,
            path: "posts",
            headers: [Header.contentType.value("application/vnd.api+json")]
        )
        let body = ["a": 1]
    }

    struct Login: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Void
        struct ParameterComponents: Sendable {
            let user: String
            let password: String
        }
        static let definition: Definition<Login> = Definition(
            method: .post,
            path: "login",
            parameters: [
                .form("user", path: \.user), .form("password", path: \.password),
                .formValue("remember me", value: true), .queryValue("next", value: "/home"),
            ]
        )
        let parameterComponents: ParameterComponents
    }

    static let samplePost = CreatePost.Body(
        title: "Hello, \"world\" / ü",
        tags: ["a", "b"],
        draft: false,
        author: .init(name: "Zoë", id: 7)
    )

    @Test func getWithTwoPathValuesThreeQueryItemsAndTwoHeaders() throws {
        let endpoint = GetPost(
            pathComponents: .init(userId: 42, postId: "hello world/1"),
            parameterComponents: .init(query: "a+b&c", page: 2, tags: ["x y"]),
            headerComponents: .init(requestId: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        )
        let expected = """
            GET https://api.example.com/v1/users/42/posts/hello%20world%2F1?q=a%2Bb%26c&page=2&tag=x%20y
            Accept: application/json
            X-Request-Id: E621E1F8-C36C-495A-93FC-0C247A3E6E5F


            """
        #expect(snapshot(try endpoint.urlRequest()) == expected)
    }

    @Test func postWithJSONBody() throws {
        let expected = """
            POST https://api.example.com/v1/posts
            Content-Type: application/json

            {"author":{"id":7,"name":"Zoë"},"draft":false,"tags":["a","b"],"title":"Hello, \\"world\\" / ü"}
            """
        #expect(snapshot(try CreatePost(body: Self.samplePost).urlRequest()) == expected)
    }

    @Test func defaultJSONEncoderBodyDecodesToTheSameValue() throws {
        struct Plain: Endpoint {
            typealias Server = BuildingServer
            typealias Response = Void
            static let definition: Definition<Plain> = Definition(method: .post, path: "posts")
            let body: CreatePost.Body
        }
        let request = try Plain(body: Self.samplePost).urlRequest()
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let json = try JSONSerialization.jsonObject(with: try #require(request.httpBody)) as? NSDictionary
        let expected: NSDictionary = [
            "title": "Hello, \"world\" / ü", "tags": ["a", "b"], "draft": false,
            "author": ["name": "Zoë", "id": 7],
        ]
        #expect(json == expected)
    }

    @Test func definitionContentTypeWinsOverTheEncoders() throws {
        let request = try CreateVendorPost().urlRequest()
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
        #expect(request.allHTTPHeaderFields?.count == 1)
        #expect(request.httpBody == Data(#"{"a":1}"#.utf8))
    }

    struct OptionalContentType: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Void
        struct HeaderComponents: Sendable { let contentType: String? }
        static let definition: Definition<OptionalContentType> = Definition(
            method: .post,
            path: "posts",
            headers: [Header("content-type").value(path: \.contentType)]
        )
        let body = ["a": 1]
        let headerComponents: HeaderComponents
    }

    @Test func nilContentTypeHeaderKeepsTheEncodersType() throws {
        let defaulted = try OptionalContentType(headerComponents: .init(contentType: nil)).urlRequest()
        #expect(defaulted.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let custom = try OptionalContentType(headerComponents: .init(contentType: "text/json")).urlRequest()
        #expect(custom.value(forHTTPHeaderField: "Content-Type") == "text/json")
        #expect(custom.allHTTPHeaderFields?.count == 1)
    }

    @Test func postWithFormBody() throws {
        let endpoint = Login(parameterComponents: .init(user: "zoë smith", password: "p+ss&w=rd %41"))
        let expected = """
            POST https://api.example.com/v1/login?next=%2Fhome
            Content-Type: application/x-www-form-urlencoded

            user=zo%C3%AB+smith&password=p%2Bss%26w%3Drd+%2541&remember+me=true
            """
        #expect(snapshot(try endpoint.urlRequest()) == expected)
    }

    @Test func formBodyRoundTripsThroughAFormParser() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for value in hostileStrings {
            let request = try BuildingForm(value).urlRequest(environment: .local)
            let body = String(decoding: try #require(request.httpBody), as: UTF8.self)
            let fields = formDecode(body)
            #expect(fields.map(\.name) == ["f", "fixed name"], "\(value.debugDescription) → \(body)")
            #expect(fields.first?.value == value, "\(value.debugDescription) → \(body)")
            let received = try await sendToTestServer(request, server: server)
            #expect(received.body == request.httpBody)
            #expect(received.header("content-type") == "application/x-www-form-urlencoded")
        }
    }

    @Test func formBodyEscapesAsHTMLFormsDo() throws {
        let body = try BuildingForm("a b+c&d=e").urlRequest().httpBody
        #expect(body == Data("f=a+b%2Bc%26d%3De&fixed+name=a+b".utf8))
    }
}
