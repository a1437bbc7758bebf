import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Request building: this library against hand-written URLComponents + URLRequest code,
// for the two shapes the issue names, in the same process.

struct BenchServer: ServerDefinition {
    var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com/v1")!] }
    static var defaultEnvironment: Environments { .production }
}

struct BenchGet: Endpoint {
    typealias Server = BenchServer
    struct Response: Decodable { let id: Int }
    struct PathComponents { let userId: Int; let postId: String }
    struct ParameterComponents { let query: String; let page: Int; let sort: String }
    struct HeaderComponents { let traceId: String }

    static let definition: Definition<BenchGet> = Definition(
        method: .get,
        path: "users/\(path: \.userId)/posts/\(path: \.postId)",
        parameters: [.query("q", path: \.query), .query("page", path: \.page), .query("sort", path: \.sort)],
        headers: [Header("X-Trace-Id").value(path: \.traceId), Header.accept.value("application/json")]
    )

    let pathComponents: PathComponents
    let parameterComponents: ParameterComponents
    let headerComponents: HeaderComponents
}

/// `BenchServer` with its base URLs made once instead of on each build, as a server may keep them:
/// the Endpoint side without the `URL(string:)` that `baseUrls` written as a literal costs per build
/// (a `RequestBase` reads its server once).
struct BenchKeptServer: ServerDefinition {
    static let urls: [Environments: URL] = [.production: URL(string: "https://api.example.com/v1")!]
    var baseUrls: [Environments: URL] { Self.urls }
    static var defaultEnvironment: Environments { .production }
}

/// `BenchGet` on `BenchKeptServer`.
struct BenchGetKept: Endpoint {
    typealias Server = BenchKeptServer
    typealias Response = BenchGet.Response

    static let definition: Definition<BenchGetKept> = Definition(
        method: .get,
        path: "users/\(path: \.userId)/posts/\(path: \.postId)",
        parameters: [.query("q", path: \.query), .query("page", path: \.page), .query("sort", path: \.sort)],
        headers: [Header("X-Trace-Id").value(path: \.traceId), Header.accept.value("application/json")]
    )

    let pathComponents: BenchGet.PathComponents
    let parameterComponents: BenchGet.ParameterComponents
    let headerComponents: BenchGet.HeaderComponents
}

struct BenchPost: Endpoint {
    typealias Server = BenchServer
    struct Response: Decodable { let id: Int }
    struct Body: Encodable { let title: String; let body: String; let tags: [String]; let draft: Bool }
    struct PathComponents { let userId: Int }

    static let definition: Definition<BenchPost> = Definition(method: .post, path: "users/\(path: \.userId)/posts")

    let body: Body
    let pathComponents: PathComponents
}

enum BuildBenchmark {
    static let get = BenchGet(
        pathComponents: .init(userId: 42, postId: "hello world/2"),
        parameterComponents: .init(query: "swift & linux = fun", page: 3, sort: "newest+first"),
        headerComponents: .init(traceId: "trace-123")
    )
    static let post = BenchPost(
        body: .init(title: "Hello", body: "A body with \"quotes\" and é", tags: ["a", "b"], draft: false),
        pathComponents: .init(userId: 42)
    )

    /// RFC 3986 unreserved characters only: what a careful hand-written client allows.
    static let allowed = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func handWrittenGet(_ endpoint: BenchGet) -> URLRequest {
        var components = URLComponents(url: URL(string: "https://api.example.com/v1")!, resolvingAgainstBaseURL: false)!
        let userId = String(endpoint.pathComponents.userId)
        let postId = endpoint.pathComponents.postId.addingPercentEncoding(withAllowedCharacters: allowed)!
        components.percentEncodedPath = components.percentEncodedPath + "/users/\(userId)/posts/\(postId)"
        let p = endpoint.parameterComponents
        components.percentEncodedQueryItems = [
            URLQueryItem(name: "q", value: p.query.addingPercentEncoding(withAllowedCharacters: allowed)),
            URLQueryItem(name: "page", value: String(p.page)),
            URLQueryItem(name: "sort", value: p.sort.addingPercentEncoding(withAllowedCharacters: allowed)),
        ]
        var request = URLRequest(url: components.url!)
        request.httpMethod = "GET"
        request.setValue(endpoint.headerComponents.traceId, forHTTPHeaderField: "X-Trace-Id")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return request
    }

    static func handWrittenPost(_ endpoint: BenchPost) -> URLRequest {
        var components = URLComponents(url: URL(string: "https://api.example.com/v1")!, resolvingAgainstBaseURL: false)!
        components.percentEncodedPath = components.percentEncodedPath + "/users/\(endpoint.pathComponents.userId)/posts"
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        request.httpBody = try! JSONEncoder().encode(endpoint.body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return request
    }

    // The same two requests as ad-hoc `Request` values, made from the same inputs on every
    // iteration, as the endpoint values are.
    static let base = RequestBase(BenchServer.self)

    static func adHocGet(_ endpoint: BenchGet) -> Request<BenchGet.Response> {
        let path = endpoint.pathComponents
        let parameters = endpoint.parameterComponents
        return .get("users/\(path.userId)/posts/\(path.postId)", on: base) {
            Parameter.queryValue("q", value: parameters.query)
            Parameter.queryValue("page", value: parameters.page)
            Parameter.queryValue("sort", value: parameters.sort)
            Header("X-Trace-Id").value(endpoint.headerComponents.traceId)
            Header.accept.value("application/json")
        }
    }

    static func adHocPost(_ endpoint: BenchPost) -> Request<BenchPost.Response> {
        .post("users/\(endpoint.pathComponents.userId)/posts", on: base, body: endpoint.body)
    }

    static func run(count: Int) {
        print("Request building, \(count) requests per shape, release build, same process")
        // Check both produce the same request before timing them.
        let ours = try! get.urlRequest()
        let theirs = handWrittenGet(get)
        precondition(ours.url == theirs.url, "GET URLs differ: \(ours.url!) vs \(theirs.url!)")
        compare(
            name: "GET  2 path + 3 query + 2 headers", count: count, library: { _ = try! get.urlRequest() },
            handWritten: { _ = handWrittenGet(get) })
        compare(
            name: "POST JSON body", count: count, library: { _ = try! post.urlRequest() },
            handWritten: { _ = handWrittenPost(post) })

        print("Request values against the equivalent Endpoint values, both made and built each time")
        let adHoc = try! adHocGet(get).urlRequest()
        precondition(adHoc.url == ours.url && adHoc.allHTTPHeaderFields == ours.allHTTPHeaderFields, "GET differs")
        // Byte lengths, not bytes: JSONEncoder on Linux orders an object's keys differently on each call.
        precondition(try! adHocPost(post).urlRequest().httpBody?.count == (try! post.urlRequest()).httpBody?.count)
        compare(
            name: "GET  2 path + 3 query + 2 headers", count: count, names: ("Request", "Endpoint"),
            library: { _ = try! adHocGet(get).urlRequest() },
            handWritten: {
                _ = try! BenchGet(
                    pathComponents: get.pathComponents, parameterComponents: get.parameterComponents,
                    headerComponents: get.headerComponents
                ).urlRequest()
            })
        precondition(
            try! BenchGetKept(
                pathComponents: get.pathComponents, parameterComponents: get.parameterComponents,
                headerComponents: get.headerComponents
            ).urlRequest() == ours)
        compare(
            name: "GET, the Endpoint's server keeping its URLs", count: count, names: ("Request", "Endpoint"),
            library: { _ = try! adHocGet(get).urlRequest() },
            handWritten: {
                _ = try! BenchGetKept(
                    pathComponents: get.pathComponents, parameterComponents: get.parameterComponents,
                    headerComponents: get.headerComponents
                ).urlRequest()
            })
        let prebuilt = adHocGet(get)
        compare(
            name: "GET, the Request value made once", count: count, names: ("Request", "Endpoint"),
            library: { _ = try! prebuilt.urlRequest() },
            handWritten: {
                _ = try! BenchGet(
                    pathComponents: get.pathComponents, parameterComponents: get.parameterComponents,
                    headerComponents: get.headerComponents
                ).urlRequest()
            })
        compare(
            name: "POST JSON body", count: count, names: ("Request", "Endpoint"),
            library: { _ = try! adHocPost(post).urlRequest() },
            handWritten: { _ = try! BenchPost(body: post.body, pathComponents: post.pathComponents).urlRequest() })
    }

    static func compare(
        name: String,
        count: Int,
        names: (library: String, handWritten: String) = ("Endpoints", "hand-written"),
        library: () -> Void,
        handWritten: () -> Void
    ) {
        // Alternate rounds so that neither side benefits from warm-up or machine noise.
        var libraryTime = 0.0
        var handTime = 0.0
        let rounds = 5
        for _ in 0..<rounds {
            handTime += measure(count / rounds, handWritten)
            libraryTime += measure(count / rounds, library)
        }
        let libraryRate = Double(count) / libraryTime
        let handRate = Double(count) / handTime
        print(
            "  \(name): \(names.library) \(Int(libraryRate)) req/s, \(names.handWritten) \(Int(handRate)) req/s, ratio \(String(format: "%.2f", libraryRate / handRate))×"
        )
    }

    static func measure(_ count: Int, _ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count { body() }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
