import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the httpbin server for the interop suite runs, from `HTTPBIN_URL`.
///
/// `scripts/httpbin.sh run swift test` installs httpbin into `.venv-httpbin`, starts it on a free
/// loopback port, runs the command with `HTTPBIN_URL` set and stops it. Without it the suite is skipped.
enum HTTPBin {
    /// `HTTPBIN_URL`, e.g. `http://127.0.0.1:54321`, or `nil` when the suite should be skipped.
    static let url: URL? = ProcessInfo.processInfo.environment["HTTPBIN_URL"].flatMap { URL(string: $0) }

    /// The same server under the name `localhost`: another origin for cross-origin redirects.
    static var localhostURL: URL? {
        url.flatMap { URL(string: $0.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")) }
    }
}

/// The httpbin server as an Endpoints server definition.
struct HTTPBinServer: ServerDefinition {
    var baseUrls: [TypicalEnvironments: URL] {
        guard let url = HTTPBin.url else { return [:] }
        return [.production: url]
    }
}

/// What httpbin's `/get`, `/post`, `/anything`, `/headers` and `/redirect-to` targets echo back.
struct HTTPBinEcho: Decodable, Sendable {
    let args: [String: String]?
    let headers: [String: String]
    let method: String?
    let url: String?
    let data: String?
    let form: [String: String]?
    let files: [String: String]?
    let json: HTTPBinPayload?

    /// The header as httpbin reports it (it capitalises names).
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A JSON body that goes to httpbin and comes back in `json`.
struct HTTPBinPayload: Codable, Sendable, Equatable {
    let name: String
    let count: Int
    let tags: [String]
}

/// `GET /get?q=…`.
struct HTTPBinGet: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = HTTPBinEcho
    struct ParameterComponents: Sendable { let q: String }

    static let definition: Definition<HTTPBinGet> = Definition(path: "get", parameters: [.query("q", path: \.q)])

    let parameterComponents: ParameterComponents

    init(q: String) { parameterComponents = ParameterComponents(q: q) }
}

/// `POST /post` with a JSON body.
struct HTTPBinPostJSON: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = HTTPBinEcho

    static let definition: Definition<HTTPBinPostJSON> = Definition(method: .post, path: "post")

    let body: HTTPBinPayload
}

/// `POST /post` with a form body.
struct HTTPBinPostForm: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = HTTPBinEcho
    struct ParameterComponents: Sendable {
        let name: String
        let note: String
    }

    static let definition: Definition<HTTPBinPostForm> = Definition(
        method: .post,
        path: "post",
        parameters: [.form("name", path: \.name), .form("note", path: \.note)]
    )

    let parameterComponents: ParameterComponents
}

/// `POST /anything` with a `multipart/form-data` body.
struct HTTPBinMultipart: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = HTTPBinEcho
    typealias BodyEncoder = MultipartFormEncoder

    static let definition: Definition<HTTPBinMultipart> = Definition(method: .post, path: "anything")
    static var bodyEncoder: MultipartFormEncoder { MultipartFormEncoder() }

    let body: MultipartForm
}

/// `GET /status/{code}` as `Void`.
struct HTTPBinStatus: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = Void
    struct PathComponents: Sendable { let code: Int }

    static let definition: Definition<HTTPBinStatus> = Definition(path: "status/\(path: \.code)")

    let pathComponents: PathComponents

    init(_ code: Int) { pathComponents = PathComponents(code: code) }
}

/// `{method} /redirect-to?url=…&status_code=…`, authenticated with a bearer token.
struct HTTPBinRedirect: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = HTTPBinEcho
    struct ParameterComponents: Sendable {
        let url: String
        let status: Int
    }

    static let auth = HeaderKeyAuth(key: "interop-token")
    static let definition: Definition<HTTPBinRedirect> = Definition(
        method: .post,
        path: "redirect-to",
        parameters: [.query("url", path: \.url), .query("status_code", path: \.status)]
    )

    let parameterComponents: ParameterComponents
    let body = HTTPBinPayload(name: "redirected", count: 1, tags: [])

    init(to url: URL, status: Int) {
        parameterComponents = ParameterComponents(url: url.absoluteString, status: status)
    }
}

/// `GET /delay/{seconds}`.
struct HTTPBinDelay: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = HTTPBinEcho
    struct PathComponents: Sendable { let seconds: Int }

    static let definition: Definition<HTTPBinDelay> = Definition(path: "delay/\(path: \.seconds)")

    let pathComponents: PathComponents

    init(seconds: Int) { pathComponents = PathComponents(seconds: seconds) }
}

/// `GET /basic-auth/user/passwd`, with HTTP Basic credentials.
struct HTTPBinBasicAuth: Endpoint {
    typealias Server = HTTPBinServer
    struct Response: Decodable, Sendable {
        let authenticated: Bool
        let user: String
    }

    static let auth = BasicAuth(username: "user", password: "passwd")
    static let definition: Definition<HTTPBinBasicAuth> = Definition(path: "basic-auth/user/passwd")
}

/// `GET /bearer`, with a bearer token.
struct HTTPBinBearer: Endpoint {
    typealias Server = HTTPBinServer
    struct Response: Decodable, Sendable {
        let authenticated: Bool
        let token: String
    }

    static let auth = HeaderKeyAuth(key: "interop-bearer")
    static let definition: Definition<HTTPBinBearer> = Definition(path: "bearer")
}

/// `GET /cookies`, with a cookie.
struct HTTPBinCookies: Endpoint {
    typealias Server = HTTPBinServer
    struct Response: Decodable, Sendable { let cookies: [String: String] }

    static let auth = CookieAuth(name: "session", value: "interop-cookie")
    static let definition: Definition<HTTPBinCookies> = Definition(path: "cookies")
}

/// `GET /cookies/set/flavour/{value}`: httpbin sets the cookie `flavour` and redirects to
/// `/cookies`, which lists the cookies it got.
struct HTTPBinSetCookie: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = HTTPBinCookieList
    struct PathComponents: Sendable { let value: String }

    static let definition: Definition<HTTPBinSetCookie> = Definition(path: "cookies/set/flavour/\(path: \.value)")

    let pathComponents: PathComponents
}

/// `GET /cookies/delete?flavour`: httpbin expires the cookie (`Max-Age=0` and a past `Expires`)
/// and redirects to `/cookies`.
struct HTTPBinDeleteCookie: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = HTTPBinCookieList

    static let definition: Definition<HTTPBinDeleteCookie> = Definition(
        path: "cookies/delete", parameters: [.queryValue("flavour", value: "")])
}

/// What `/cookies` answers.
struct HTTPBinCookieList: Decodable, Sendable { let cookies: [String: String] }

/// `GET /gzip`: a gzip-encoded JSON body.
struct HTTPBinGzip: Endpoint {
    typealias Server = HTTPBinServer
    struct Response: Decodable, Sendable {
        let gzipped: Bool
        let method: String
    }

    static let definition: Definition<HTTPBinGzip> = Definition(path: "gzip")
}

/// `GET /bytes/{count}?seed=…`: random bytes, raw.
struct HTTPBinBytes: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = Data
    struct PathComponents: Sendable { let count: Int }

    static let definition: Definition<HTTPBinBytes> = Definition(
        path: "bytes/\(path: \.count)",
        parameters: [.queryValue("seed", value: 7)]
    )

    let pathComponents: PathComponents

    init(count: Int) { pathComponents = PathComponents(count: count) }
}

/// `GET /headers` with a header from the endpoint's values.
struct HTTPBinHeaders: Endpoint {
    typealias Server = HTTPBinServer
    typealias Response = HTTPBinEcho
    struct HeaderComponents: Sendable { let trace: String }

    static let definition: Definition<HTTPBinHeaders> = Definition(
        path: "headers",
        headers: [Header("X-Trace-Id").value(path: \.trace), Header.accept.value("application/json")]
    )

    let headerComponents: HeaderComponents
}
