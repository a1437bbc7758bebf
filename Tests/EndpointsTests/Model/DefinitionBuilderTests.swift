import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct DefinitionBuilderTests {
    /// A server whose environment is its base URL, so a test can send to its own loopback server;
    /// the default is a placeholder for tests that only build requests.
    struct ApiServer: ServerDefinition {
        typealias Environments = URL
        var baseUrls: [URL: URL] { [:] }
        static var defaultEnvironment: URL { URL(string: "https://api.example.com")! }
        func baseURL(for environment: URL) -> URL? { environment }
    }

    // The README's sample, verbatim.
    struct SearchEndpoint: Endpoint {
        typealias Server = ApiServer

        struct ParameterComponents { let term: String }
        struct HeaderComponents { let requestId: String? }
        struct Response: Decodable { let titles: [String] }

        static let includeDebug = false
        static let facets = ["swift", "http"]

        static let definition = Definition<SearchEndpoint>(method: .get, path: "search") {
            Parameter.query("q", path: \.term)
            Parameter.queryValue("limit", value: 20)
            Header.accept.value("application/json")
            Header("X-Request-Id").value(path: \.requestId)  // nil leaves it out
            if includeDebug { Parameter.queryValue("debug", value: true) }
            for facet in facets { Parameter.queryValue("facet", value: facet) }
            #if DEBUG
                Header("X-Build").value("debug")
            #endif
        }

        let parameterComponents: ParameterComponents
        let headerComponents: HeaderComponents
    }

    @Test func readmeSampleBuildsQueryAndHeadersInOrder() throws {
        let endpoint = SearchEndpoint(
            parameterComponents: .init(term: "a b&c"),
            headerComponents: .init(requestId: "r-1")
        )
        let request = try endpoint.urlRequest()
        #expect(
            request.url?.absoluteString == "https://api.example.com/search?q=a%20b%26c&limit=20&facet=swift&facet=http")
        #expect(request.httpMethod == "GET")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.value(forHTTPHeaderField: "X-Request-Id") == "r-1")
        #if DEBUG
            #expect(request.value(forHTTPHeaderField: "X-Build") == "debug")
        #else
            #expect(request.value(forHTTPHeaderField: "X-Build") == nil)
        #endif
    }

    @Test func nilHeaderValueLeavesHeaderOut() throws {
        let endpoint = SearchEndpoint(
            parameterComponents: .init(term: "x"),
            headerComponents: .init(requestId: nil)
        )
        let request = try endpoint.urlRequest()
        #expect(request.value(forHTTPHeaderField: "X-Request-Id") == nil)
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
    }

    @Test func builderMatchesTheDictionaryForm() throws {
        struct Literal: Endpoint {
            typealias Server = ApiServer
            typealias Response = Data
            typealias ParameterComponents = SearchEndpoint.ParameterComponents
            typealias HeaderComponents = SearchEndpoint.HeaderComponents
            static let definition: Definition<Literal> = Definition(
                method: .get,
                path: "search",
                parameters: [
                    .query("q", path: \.term), .queryValue("limit", value: 20),
                    .queryValue("facet", value: "swift"), .queryValue("facet", value: "http"),
                ],
                headers: [Header.accept.value("application/json"), Header("X-Request-Id").value(path: \.requestId)]
            )
            let parameterComponents: ParameterComponents
            let headerComponents: HeaderComponents
        }
        let parameters = SearchEndpoint.ParameterComponents(term: "t")
        let headers = SearchEndpoint.HeaderComponents(requestId: "id")
        let built = try SearchEndpoint(parameterComponents: parameters, headerComponents: headers).urlRequest()
        let literal = try Literal(parameterComponents: parameters, headerComponents: headers).urlRequest()
        #expect(built.url == literal.url)
        var builtHeaders = built.allHTTPHeaderFields ?? [:]
        builtHeaders["X-Build"] = nil
        #expect(builtHeaders == literal.allHTTPHeaderFields)
    }

    // MARK: Control flow

    struct Flags: Sendable {
        var verbose = false
        var page: Int?
        var sort: Sort = .relevance
        var ids: [Int] = []
        var token: String?
    }

    enum Sort: String, Sendable { case relevance, date }

    /// Which statements run is decided once, when the definition is built; each test builds its own
    /// definition from `Flags` to exercise `if`, `if let`, `else`, `switch`, `for` and `#available`.
    static func definition(_ flags: Flags) -> Definition<Dynamic> {
        Definition(path: "items") {
            Parameter.queryValue("first", value: 1)
            if flags.verbose { Parameter.queryValue("verbose", value: true) }
            if let page = flags.page {
                Parameter.queryValue("page", value: page)
            } else {
                Parameter.queryValue("page", value: "all")
            }
            switch flags.sort {
            case .relevance: Parameter.queryValue("sort", value: "score")
            case .date: Parameter.queryValue("sort", value: "newest")
            }
            for id in flags.ids { Parameter.queryValue("id", value: id) }
            if let token = flags.token { Header("X-Token").value(token) }
            if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) { Parameter.queryValue("modern", value: 1) }
        }
    }

    /// An endpoint whose definition is a task-local, so each test can build requests from its own.
    struct Dynamic: Endpoint {
        typealias Server = ApiServer
        typealias Response = Data
        @TaskLocal static var definition = DefinitionBuilderTests.definition(Flags())
    }

    func build(_ flags: Flags) throws -> URLRequest {
        try Dynamic.$definition.withValue(Self.definition(flags)) { try Dynamic().urlRequest() }
    }

    @Test func ifElseSwitchAndForChooseParameters() throws {
        let plain = try build(Flags())
        #expect(plain.url?.query == "first=1&page=all&sort=score&modern=1")
        #expect(plain.value(forHTTPHeaderField: "X-Token") == nil)

        let all = try build(Flags(verbose: true, page: 3, sort: .date, ids: [7, 8, 9], token: "t"))
        #expect(all.url?.query == "first=1&verbose=true&page=3&sort=newest&id=7&id=8&id=9&modern=1")
        #expect(all.value(forHTTPHeaderField: "X-Token") == "t")
    }

    @Test func shorthandWorksOnTheFirstLine() throws {
        struct Short: Endpoint {
            typealias Server = ApiServer
            typealias Response = Data
            static let definition: Definition<Short> = Definition(path: "s") {
                .queryValue("a", value: 1)
                Parameter.queryValue("b", value: 2)
            }
        }
        #expect(try Short().urlRequest().url?.query == "a=1&b=2")
    }

    @Test func aSharedValueCanBeReused() throws {
        struct Reused: Endpoint {
            typealias Server = ApiServer
            typealias Response = Data
            static let json = "application/json"
            static let definition: Definition<Reused> = Definition(path: "r") {
                Header.accept.value(json)
                Header.contentType.value(json)
            }
        }
        let request = try Reused().urlRequest()
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func formParametersAndMethod() throws {
        struct Post: Endpoint {
            typealias Server = ApiServer
            typealias Response = Data
            struct ParameterComponents: Sendable { let name: String }
            static let definition: Definition<Post> = Definition(method: .post, path: "people") {
                Parameter.form("name", path: \.name)
                Parameter.formValue("kind", value: "a b")
                Parameter.queryValue("v", value: 2)
            }
            let parameterComponents: ParameterComponents
        }
        let request = try Post(parameterComponents: .init(name: "Zoë")).urlRequest()
        #expect(request.httpMethod == "POST")
        #expect(request.url?.absoluteString == "https://api.example.com/people?v=2")
        #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == "name=Zo%C3%AB&kind=a+b")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    }

    // MARK: Repeated headers

    struct Repeated: Endpoint {
        typealias Server = ApiServer
        typealias Response = Data
        struct HeaderComponents: Sendable { var override: String? }
        static let definition: Definition<Repeated> = Definition(path: "r") {
            Header.accept.value("application/json")
            Header("X-Mode").value("first")
            Header("ACCEPT").value("text/plain")
            Header("x-mode").value(path: \.override)
        }
        var headerComponents = HeaderComponents()
    }

    @Test func lastHeaderWithANameWinsCaseInsensitively() throws {
        let request = try Repeated(headerComponents: .init(override: "second")).urlRequest()
        #expect(request.value(forHTTPHeaderField: "Accept") == "text/plain")
        #expect(request.value(forHTTPHeaderField: "X-Mode") == "second")
    }

    @Test func aNilWinningHeaderIsLeftOutWithoutFallingBack() throws {
        let request = try Repeated(headerComponents: .init(override: nil)).urlRequest()
        #expect(request.value(forHTTPHeaderField: "X-Mode") == nil)
    }

    @Test func invalidHeaderNameIsRefusedAsWithTheDictionaryForm() throws {
        struct Bad: Endpoint {
            typealias Server = ApiServer
            typealias Response = Data
            static let definition: Definition<Bad> = Definition(path: "b") {
                Header("X-Bad\r\nInjected").value("1")
            }
        }
        #expect(throws: EndpointError.invalidHeaderName("X-Bad\r\nInjected")) { try Bad().urlRequest() }
    }

    // MARK: Over the wire

    @Test func builtDefinitionReachesTheServer() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/search") { _ in .json(["titles": ["one"]]) }

        let endpoint = SearchEndpoint(
            parameterComponents: .init(term: "swift & http"),
            headerComponents: .init(requestId: "req-9")
        )
        let response = try await URLSession.shared.response(with: endpoint, environment: server.baseURL)
        #expect(response.titles == ["one"])

        let received = try #require(server.requests.last)
        #expect(received.rawPath == "/search")
        #expect(received.queryValue("q") == "swift & http")
        #expect(received.queryItems.filter { $0.name == "facet" }.map(\.value) == ["swift", "http"])
        #expect(received.header("accept") == "application/json")
        #expect(received.header("x-request-id") == "req-9")
    }
}
