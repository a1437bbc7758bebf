import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct PathTemplateTests {
    struct Components: Sendable {
        let userId: Int
        let postId: String
        let tag: String?
    }

    struct Composed: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        typealias PathComponents = PathTemplateTests.Components
        static let userPrefix: PathTemplate<Components> = "users/\(path: \.userId)"
        static let definition: Definition<Composed> = Definition(path: userPrefix + "posts/\(path: \.postId)")
        let pathComponents: Components
    }

    struct LeadingValue: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        typealias PathComponents = PathTemplateTests.Components
        static let definition: Definition<LeadingValue> = Definition(path: "\(path: \.postId)comments")
        let pathComponents: Components
    }

    struct NilValue: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        typealias PathComponents = PathTemplateTests.Components
        static let definition: Definition<NilValue> = Definition(path: "tags/\(path: \.tag)")
        let pathComponents: Components
    }

    struct Fixed: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        static let definition: Definition<Fixed> = Definition(path: "status")
    }

    let components = Components(userId: 42, postId: "a/b c", tag: nil)

    /// A fixed path's URL is remembered for the base URL it was last built against; another base
    /// URL, or a base URL with a query, gets its own.
    @Test func aFixedPathIsRightAgainstEveryBaseURL() throws {
        let bases: [(TypicalEnvironments, String)] = [
            (.production, "https://api.example.com/v1/status"),
            (.staging, "https://staging.example.com/v1/status"),
            (.production, "https://api.example.com/v1/status"),
            (.production, "https://api.example.com/v1/status"),
            (.staging, "https://staging.example.com/v1/status"),
        ]
        for (environment, expected) in bases {
            #expect(try Fixed().urlRequest(environment: environment).url?.absoluteString == expected)
        }
        let urls = try (0..<100).map { _ in try Fixed().urlRequest().url }
        #expect(Set(urls).count == 1)
    }

    @Test func plusComposesSegmentsWithOneSlash() throws {
        let url = try Composed(pathComponents: components).urlRequest().url
        #expect(url?.absoluteString == "https://api.example.com/v1/users/42/posts/a%2Fb%20c")
    }

    @Test func plusDoesNotDoubleSlashes() throws {
        let template: PathTemplate<Components> = "users/" + "/posts"
        #expect(template.description == "users/posts")
        let prefix: PathTemplate<Components> = "users/"
        let joined = prefix + "/\(path: \.userId)"
        #expect(joined.description == "users/{userId}")
    }

    @Test func keyPathCanStartTheTemplate() throws {
        let url = try LeadingValue(pathComponents: components).urlRequest().url
        #expect(url?.absoluteString == "https://api.example.com/v1/a%2Fb%20c/comments")
    }

    @Test func descriptionNamesTheValues() {
        #expect(Composed.definition.pathTemplate.description == "users/{userId}/posts/{postId}")
        let interpolated: PathTemplate<Components> = "users/\(path: \.userId)/posts/\(path: \.postId)"
        #expect(interpolated.description == "users/{userId}/posts/{postId}")
    }

    @Test func literalTextIsEncodedAsPathText() {
        let template: PathTemplate<Components> = "a b/ü/50%"
        #expect(template.description == "a%20b/%C3%BC/50%25")
    }

    @Test func nilPathValueIsLeftOutWithItsSlash() throws {
        // Endpoints 0.4's rule: a nil optional segment is left out.
        let url = try NilValue(pathComponents: components).urlRequest().url
        #expect(url?.absoluteString == "https://api.example.com/v1/tags")
        let tagged = Components(userId: 1, postId: "p", tag: "swift")
        #expect(try NilValue(pathComponents: tagged).urlRequest().url?.path == "/v1/tags/swift")
    }

    @Test func interpolatedValueIsItsOwnSegment() throws {
        let glued: PathTemplate<Components> = "v\(path: \.userId)posts"
        #expect(try glued.path(with: components) == "v/42/posts")
        #expect(glued.description == "v/{userId}/posts")
        let joined: PathTemplate<Components> = "item('\(path: \.postId, includesSlash: false)')"
        #expect(try joined.path(with: components) == "item('a%2Fb%20c')")
    }

    @Test func emptySegmentsAreWrittenOnce() throws {
        let doubled: PathTemplate<Components> = "a//b/"
        #expect(doubled.description == "a/b/")
        let middle: PathTemplate<Components> = "tags/\(path: \.tag)/recent"
        #expect(try middle.path(with: components) == "tags/recent")
        #expect(try middle.path(with: Components(userId: 1, postId: "p", tag: "x")) == "tags/x/recent")
    }

    @Test func emptyDotAndDotDotValuesAreStillRefused() {
        for value in ["", ".", ".."] {
            let bad = Components(userId: 1, postId: value, tag: nil)
            #expect(throws: EndpointError.invalidPathValue("postId", value: value)) {
                try Composed(pathComponents: bad).urlRequest()
            }
        }
    }
}

@Suite struct MethodTests {
    struct Purge: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Void
        static let definition: Definition<Purge> = Definition(method: "PURGE", path: "cache")
    }

    struct Broken: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Void
        static let definition: Definition<Broken> = Definition(method: "GET /evil HTTP/1.1\r\nX:", path: "cache")
    }

    struct Empty: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Void
        static let definition: Definition<Empty> = Definition(method: "", path: "cache")
    }

    @Test func customMethodTokenIsSentAsWritten() throws {
        #expect(try Purge().urlRequest().httpMethod == "PURGE")
        #expect(("PURGE" as Method) == Method(rawValue: "PURGE"))
        #expect(Method.patch.rawValue == "PATCH")
    }

    @Test func standardMethodsAreTheirTokens() {
        let methods: [Method] = [.get, .post, .put, .patch, .delete, .head, .options]
        #expect(methods.map(\.rawValue) == ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
    }

    @Test func invalidMethodTokensAreRefused() {
        #expect(throws: EndpointError.invalidMethod("GET /evil HTTP/1.1\r\nX:")) { try Broken().urlRequest() }
        #expect(throws: EndpointError.invalidMethod("")) { try Empty().urlRequest() }
    }
}
