import Foundation
import Testing

@testable import Endpoints

// The deprecated forwarders of `Compatibility/Model+Renamed.swift` still build what they built.
// (0.4's path composition with `+` is covered by PathTemplateTests04.)
@Suite struct ModelRenamedTests {
    struct Server: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
    }

    struct Reused: Endpoint {
        typealias Server = ModelRenamedTests.Server
        typealias Response = Data
        static let json: HeaderField<Void> = .fieldValue(value: "application/json")
        static let definition: Definition<Reused> = Definition(path: "r") {
            HeaderEntry(.accept, json)
            HeaderEntry(.contentType, json)
        }
    }

    @Test func aHeaderEntryMadeFromAHeaderFieldIsSent() throws {
        let request = try Reused().urlRequest()
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    struct Components { let userId: Int }

    @Test func plusWithAKeyPathOrAValueJoinsWithOneSlash() throws {
        let keyPath: PathTemplate<Components> = "users/" + \.userId
        #expect(keyPath.description == "users/{userId}")
        let leading: PathTemplate<Components> = \.userId + "/posts"
        #expect(try leading.path(with: Components(userId: 7)) == "7/posts")
        let value: PathTemplate<Components> = "api" + 2 + "users"
        #expect(try value.path(with: Components(userId: 7)) == "api/2/users")
    }
}
