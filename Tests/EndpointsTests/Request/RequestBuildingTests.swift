import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// An ad-hoc `Request` and the `Endpoint` that describes the same call build the same URLRequest:
// one set of encoding and validation rules. Names start with `AdHoc` to stay apart from other suites.

/// A server whose base URL has a path and a query of its own, and a request processor.
struct AdHocServer: ServerDefinition {
    var baseUrls: [Environments: URL] {
        [
            .production: URL(string: "https://api.example.com/v1?api-version=2")!,
            .staging: URL(string: "https://staging.example.com/v1/")!,
        ]
    }
    var requestProcessor: @Sendable (URLRequest) -> URLRequest {
        { request in
            var request = request
            request.setValue("processed", forHTTPHeaderField: "X-Processed")
            return request
        }
    }
}

struct AdHocUser: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// GET with two path values, three query items (one repeated) and two headers.
struct AdHocSearchEndpoint: Endpoint {
    typealias Server = AdHocServer
    typealias Response = [AdHocUser]
    struct PathComponents: Sendable { let team: String; let page: Int }
    struct ParameterComponents: Sendable { let term: String; let tags: [String] }
    struct HeaderComponents: Sendable { let trace: String }

    static let definition = Definition<AdHocSearchEndpoint>(method: .get, path: "teams/\(path: \.team)/\(path: \.page)")
    {
        Parameter.query("q", path: \.term)
        Parameter.query("tag", path: \.tags)
        Header("X-Trace").value(path: \.trace)
        Header.accept.value("application/json")
    }

    let pathComponents: PathComponents
    let parameterComponents: ParameterComponents
    let headerComponents: HeaderComponents
}

/// POST with a JSON body.
struct AdHocCreateEndpoint: Endpoint {
    typealias Server = AdHocServer
    typealias Response = AdHocUser
    static let definition: Definition<AdHocCreateEndpoint> = Definition(method: .post, path: "users")
    let body: AdHocUser
}

/// POST with form fields.
struct AdHocLoginEndpoint: Endpoint {
    typealias Server = AdHocServer
    typealias Response = Data
    static let definition: Definition<AdHocLoginEndpoint> = Definition(
        method: .post,
        path: "login",
        parameters: [.formValue("user", value: "ada lovelace"), .formValue("password", value: "p&ss=word+")]
    )
}

/// PUT with a multipart body and a fixed boundary.
struct AdHocUploadEndpoint: Endpoint {
    typealias Server = AdHocServer
    typealias Response = Void
    typealias Body = MultipartForm
    typealias BodyEncoder = MultipartFormEncoder
    static let definition: Definition<AdHocUploadEndpoint> = Definition(method: .put, path: "avatar")
    static var bodyEncoder: MultipartFormEncoder { MultipartFormEncoder(boundary: "fixed-boundary") }
    let body: MultipartForm
}

enum AdHocFixtures {
    static let base = RequestBase(AdHocServer.self)
    static let form: MultipartForm = [
        .field(name: "caption", value: "Me, on a hill"),
        .file(name: "image", filename: "me.png", contentType: "image/png", data: Data([0x89, 0x50])),
    ]
}

/// Fails with each part that differs. JSON bodies are compared as JSON: `JSONEncoder` on Linux
/// writes an object's keys in a different order from one call to the next.
func expectSameRequest(_ adHoc: URLRequest, _ endpoint: URLRequest, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(adHoc.httpMethod == endpoint.httpMethod, sourceLocation: sourceLocation)
    #expect(adHoc.url == endpoint.url, sourceLocation: sourceLocation)
    #expect(adHoc.allHTTPHeaderFields == endpoint.allHTTPHeaderFields, sourceLocation: sourceLocation)
    if adHoc.value(forHTTPHeaderField: "Content-Type") == "application/json" {
        #expect(jsonObject(adHoc.httpBody) == jsonObject(endpoint.httpBody), sourceLocation: sourceLocation)
    } else {
        #expect(adHoc.httpBody == endpoint.httpBody, sourceLocation: sourceLocation)
    }
}

/// `data` parsed as JSON, for comparing bodies whatever the order of their keys.
func jsonObject(_ data: Data?) -> NSObject? {
    data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? NSObject }
}

@Suite struct RequestBuildingTests {
    @Test func getWithPathQueryAndHeadersMatchesTheEndpoint() throws {
        let team = "a/b c"
        let tags = ["x&y", "z=1"]
        let adHoc = try Request<[AdHocUser]>.get("teams/\(team)/\(3)", on: AdHocFixtures.base) {
            Parameter.queryValue("q", value: "swift + linux")
            for tag in tags { Parameter.queryValue("tag", value: tag) }
            Header("X-Trace").value("trace-1")
            Header.accept.value("application/json")
        }.urlRequest()
        let endpoint = try AdHocSearchEndpoint(
            pathComponents: .init(team: team, page: 3),
            parameterComponents: .init(term: "swift + linux", tags: tags),
            headerComponents: .init(trace: "trace-1")
        ).urlRequest()
        expectSameRequest(adHoc, endpoint)
        #expect(
            adHoc.url?.absoluteString
                == "https://api.example.com/v1/teams/a%2Fb%20c/3?api-version=2&q=swift%20%2B%20linux&tag=x%26y&tag=z%3D1"
        )
        #expect(adHoc.value(forHTTPHeaderField: "X-Processed") == "processed")
    }

    @Test func jsonBodyMatchesTheEndpoint() throws {
        let user = AdHocUser(id: 1, name: "Ada")
        let adHoc = try Request<AdHocUser>.post("users", on: AdHocFixtures.base, body: user).urlRequest()
        let endpoint = try AdHocCreateEndpoint(body: user).urlRequest()
        expectSameRequest(adHoc, endpoint)
        #expect(adHoc.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func formFieldsMatchTheEndpoint() throws {
        let adHoc = try Request<Data>.post("login", on: AdHocFixtures.base) {
            Parameter.formValue("user", value: "ada lovelace")
            Parameter.formValue("password", value: "p&ss=word+")
        }.urlRequest()
        expectSameRequest(adHoc, try AdHocLoginEndpoint().urlRequest())
        #expect(adHoc.httpBody == Data("user=ada+lovelace&password=p%26ss%3Dword%2B".utf8))
    }

    @Test func multipartBodyMatchesTheEndpoint() throws {
        let adHoc = try Request<Void>.request(
            .put,
            "avatar",
            on: AdHocFixtures.base,
            body: AdHocFixtures.form,
            encoder: MultipartFormEncoder(boundary: "fixed-boundary")
        ).urlRequest()
        expectSameRequest(adHoc, try AdHocUploadEndpoint(body: AdHocFixtures.form).urlRequest())
        #expect(adHoc.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=fixed-boundary")
    }

    @Test func environmentOfTheServerIsUsed() throws {
        let staging = RequestBase(AdHocServer.self, environment: .staging)
        let adHoc = try Request<AdHocUser>.post("users", on: staging, body: AdHocUser(id: 1, name: "Ada")).urlRequest()
        let endpoint = try AdHocCreateEndpoint(body: AdHocUser(id: 1, name: "Ada")).urlRequest(environment: .staging)
        expectSameRequest(adHoc, endpoint)
        #expect(adHoc.url?.absoluteString == "https://staging.example.com/v1/users")
    }

    @Test func absoluteURLKeepsItsQueryAndGetsTheItems() throws {
        let request = try Request<Data>.get("https://api.agify.io/?country_id=NO") {
            URLQueryItem(name: "name", value: "Zaid Ø")
            URLQueryItem(name: "skipped", value: nil)
        }.urlRequest()
        #expect(request.url?.absoluteString == "https://api.agify.io/?country_id=NO&name=Zaid%20%C3%98")
        #expect(request.httpMethod == "GET")
        #expect(request.allHTTPHeaderFields?.isEmpty ?? true)
    }

    @Test func builderTakesIfForAndSwitch() throws {
        enum Sort { case newest, oldest }
        func request(sort: Sort, page: Int?, debug: Bool) throws -> URLRequest {
            try Request<Data>.get("https://api.example.com/posts") {
                switch sort {
                case .newest: URLQueryItem(name: "sort", value: "-date")
                case .oldest: URLQueryItem(name: "sort", value: "date")
                }
                if let page { Parameter.queryValue("page", value: page) }
                for id in [1, 2] { Parameter.queryValue("id", value: id) }
                if debug {
                    Header("X-Debug").value(true)
                } else {
                    Header("X-Debug").value(false)
                }
            }.urlRequest()
        }
        let first = try request(sort: .newest, page: 2, debug: true)
        #expect(first.url?.query == "sort=-date&page=2&id=1&id=2")
        #expect(first.value(forHTTPHeaderField: "X-Debug") == "true")
        let second = try request(sort: .oldest, page: nil, debug: false)
        #expect(second.url?.query == "sort=date&id=1&id=2")
        #expect(second.value(forHTTPHeaderField: "X-Debug") == "false")
    }

    @Test func baseHeadersAreSentAndARequestHeaderReplacesThem() throws {
        let base = RequestBase(
            url: URL(string: "https://api.example.com")!,
            headers: [.accept: "application/json", "X-Client": "tests"]
        )
        let plain = try Request<Data>.get("users", on: base).urlRequest()
        #expect(plain.allHTTPHeaderFields == ["Accept": "application/json", "X-Client": "tests"])
        let replaced = try Request<Data>.get("users", on: base) { Header("ACCEPT").value("text/plain") }
            .header("X-Extra", 1)
            .urlRequest()
        #expect(replaced.allHTTPHeaderFields == ["ACCEPT": "text/plain", "X-Client": "tests", "X-Extra": "1"])
    }

    @Test func methodsAreTheirTokens() throws {
        let url: RequestTarget = "https://api.example.com/x"
        #expect(try Request<Data>.get(url).urlRequest().httpMethod == "GET")
        #expect(try Request<Data>.post(url).urlRequest().httpMethod == "POST")
        #expect(try Request<Data>.request(.put, url).urlRequest().httpMethod == "PUT")
        #expect(try Request<Data>.request(.patch, url).urlRequest().httpMethod == "PATCH")
        #expect(try Request<Data>.request(.delete, url).urlRequest().httpMethod == "DELETE")
        #expect(try Request<Data>.request("PURGE", url).urlRequest().httpMethod == "PURGE")
    }

    @Test func badInputIsATypedErrorBeforeAnythingIsSent() throws {
        let url: RequestTarget = "https://api.example.com/x"
        #expect(throws: EndpointError.invalidHeaderValue(name: "X-Name")) {
            try Request<Data>.get(url) { Header("X-Name").value("a\r\nInjected: yes") }.urlRequest()
        }
        #expect(throws: EndpointError.invalidHeaderValue(name: "X-Nul")) {
            try Request<Data>.get(url).header("X-Nul", "a\u{0}b").urlRequest()
        }
        #expect(throws: EndpointError.invalidHeaderName("X Bad")) {
            try Request<Data>.get(url).header("X Bad", "1").urlRequest()
        }
        #expect(throws: EndpointError.invalidMethod("GET X")) {
            try Request<Data>.request("GET X", url).urlRequest()
        }
        #expect(throws: EndpointError.conflictingBody) {
            try Request<Data>.post(url, body: ["a": 1]) { Parameter.formValue("b", value: 2) }.urlRequest()
        }
        #expect(throws: EndpointError.invalidURL("users")) {
            try Request<Data>.get("users").urlRequest()
        }
        #expect(throws: EndpointError.invalidPathValue("1", value: "..")) {
            try Request<Data>.get("users/\("..")", on: AdHocFixtures.base).urlRequest()
        }
        struct NoValue: ParameterRepresentable { var parameterValue: String? { nil } }
        // A nil segment is left out, as in an endpoint's path (0.4's rule, see MigratingFrom04).
        #expect(
            try Request<Data>.get("users/\(1)/\(NoValue())", on: AdHocFixtures.base).urlRequest().url?.path
                == "/v1/users/1")
        let missing = RequestBase(AdHocServer.self, environment: .development)
        #expect(throws: EndpointError.missingBaseURL(server: "AdHocServer", environment: "development")) {
            try Request<Data>.get("users", on: missing).urlRequest()
        }
    }

    // The fast paths of making a request (plain literals kept as written, values stored and named
    // by their place only when needed) give what the general ones give.
    @Test func pathLiteralsAndValuesFollowTheEndpointRules() throws {
        let escaped = try Request<Data>.get("a b//c/\(1)//d", on: AdHocFixtures.base).urlRequest()
        #expect(escaped.url?.absoluteString == "https://api.example.com/v1/a%20b/c/1/d?api-version=2")
        let template: PathTemplate<Void> = "a b//c"
        #expect(try template.path(with: ()) == "a%20b/c")
        #expect(Request<Data>.get("users/\(1)/posts/\(2)", on: AdHocFixtures.base).name == "GET users/{1}/posts/{2}")
        #expect(throws: EndpointError.invalidPathValue("2", value: ".")) {
            try Request<Data>.get("users/\(1)/posts/\(".")", on: AdHocFixtures.base).urlRequest()
        }
        #expect(throws: EndpointError.invalidHeaderName("X Bad")) {
            try Request<Data>.get("users", on: AdHocFixtures.base) { Header("X Bad").value("1") }.urlRequest()
        }
    }

    @Test func descriptionsShowNeitherHeaderValuesNorBodies() {
        let base = RequestBase(
            url: URL(string: "https://api.example.com/?key=secret-key")!, headers: ["X-Key": "secret-key"])
        let request = Request<Data>.post("users/\(1)", on: base, body: ["password": "secret-body"]) {
            Header.authorization.value("Bearer secret-token")
        }
        for text in [
            String(describing: request), String(reflecting: request), String(describing: base),
            String(reflecting: base), dumped(request), dumped(base),
        ] {
            #expect(!text.contains("secret"), "\(text)")
        }
        #expect("\(request)" == #"AdHocRequest<Data, EmptyCodable>(name: "POST users/{1}")"#)
        #expect("\(base)" == #"RequestBase(url: "https://api.example.com/")"#)
        #expect(dumped(base) == "▿ Endpoints.RequestBase\n  - url: \"https://api.example.com/\"\n")
        #expect(request.named("createUser").name == "createUser")
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
