import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Servers and endpoints shared by the request-building tests. Names start with `Building` so they
// cannot collide with other suites in this target.

/// A server whose production URL has a path of its own, and whose staging URL ends in a slash.
struct BuildingServer: ServerDefinition {
    var baseUrls: [Environments: URL] {
        [
            .production: URL(string: "https://api.example.com/v1")!,
            .staging: URL(string: "https://staging.example.com/v1/")!,
            .local: URL(string: "http://placeholder.invalid")!,
        ]
    }
}

/// One path segment filled from a value.
struct BuildingSegment: Endpoint {
    typealias Server = BuildingServer
    typealias Response = Data
    struct PathComponents: Sendable { let value: String }
    static let definition: Definition<BuildingSegment> = Definition(path: "items/\(path: \.value)")
    let pathComponents: PathComponents

    init(_ value: String) { pathComponents = PathComponents(value: value) }
}

/// One query item and one form-free request, so any string can be placed in the query.
struct BuildingQuery: Endpoint {
    typealias Server = BuildingServer
    typealias Response = Data
    struct ParameterComponents: Sendable { let value: String }
    static let definition: Definition<BuildingQuery> = Definition(
        path: "echo", parameters: [.query("q", path: \.value)])
    let parameterComponents: ParameterComponents

    init(_ value: String) { parameterComponents = ParameterComponents(value: value) }
}

/// One form field.
struct BuildingForm: Endpoint {
    typealias Server = BuildingServer
    typealias Response = Data
    struct ParameterComponents: Sendable { let value: String }
    static let definition: Definition<BuildingForm> = Definition(
        method: .post,
        path: "echo",
        parameters: [.form("f", path: \.value), .formValue("fixed name", value: "a b")]
    )
    let parameterComponents: ParameterComponents

    init(_ value: String) { parameterComponents = ParameterComponents(value: value) }
}

/// Strings that break naive encoders.
let hostileStrings: [String] = [
    "plain", "with space", "a+b", "a&b", "a=b", "a=b&c=d", "%41", "%", "100%", "%zz", "é", "naïve café",
    "日本語", "🙂👍🏽", "a;b", "a#b", "a?b", "a/b", "a\\b", "\"quoted\"", "'single'", "<tag>", "{}[]|^`",
    "tab\there", "line\nbreak", "cr\rhere", "~-._", "!*'();:@&=+$,/?#[]", "   ", "+ +", "=&=&",
]

/// Sends `request` to `server` instead of the placeholder host it was built for, keeping the
/// path and query exactly as built, and returns what the server received.
func sendToTestServer(_ request: URLRequest, server: TestServer) async throws -> TestServer.Request {
    let built = try #require(request.url?.absoluteString)
    let placeholder = "http://placeholder.invalid"
    #expect(built.hasPrefix(placeholder))
    var base = server.baseURL.absoluteString
    if base.hasSuffix("/") { base.removeLast() }
    var rerouted = request
    let target = base + String(built.dropFirst(placeholder.count))
    rerouted.url = URL(string: target)
    #expect(rerouted.url?.absoluteString == target)
    let (_, response) = try await URLSession.shared.data(for: rerouted)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    return try #require(server.requests.last)
}

/// Decodes an `application/x-www-form-urlencoded` string as a server does.
func formDecode(_ text: String) -> [(name: String, value: String)] {
    TestServer.Request(method: "GET", rawPath: "/", rawQuery: text).queryItems
}
