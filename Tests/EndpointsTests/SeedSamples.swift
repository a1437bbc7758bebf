import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples from the README, compiled as they are written there.

struct ApiServer: ServerDefinition {
    var baseUrls: [Environments: URL] {
        return [
            .local: URL(string: "https://local-api.example.com")!,
            .staging: URL(string: "https://staging-api.example.com")!,
            .production: URL(string: "https://api.example.com")!,
        ]
    }

    static var defaultEnvironment: Environments { .production }
}

struct MyEndpoint: Endpoint {
    typealias Server = ApiServer

    static let definition: Definition<MyEndpoint> = Definition(
        method: .get,
        path: "path/to/resource"
    )

    struct Response: Decodable {
        let resourceId: String
        let resourceName: String
    }
}

struct RawEndpoint: Endpoint {
    typealias Server = ApiServer
    typealias Response = Data
    static let definition: Definition<RawEndpoint> = Definition(method: .get, path: "raw")
}

struct VoidEndpoint: Endpoint {
    typealias Server = ApiServer
    typealias Response = Void
    static let definition: Definition<VoidEndpoint> = Definition(method: .delete, path: "thing")
}

@Suite struct SeedSampleTests {
    @Test func myEndpointBuildsAgainstTheDefaultEnvironment() throws {
        let request = try MyEndpoint().urlRequest()
        #expect(request.url?.absoluteString == "https://api.example.com/path/to/resource")
        #expect(request.httpMethod == "GET")
        let staging = try MyEndpoint().urlRequest(environment: .staging)
        #expect(staging.url?.absoluteString == "https://staging-api.example.com/path/to/resource")
    }

    @Test func missingEnvironmentNamesServerAndEnvironment() {
        #expect(throws: EndpointError.missingBaseURL(server: "ApiServer", environment: "development")) {
            try MyEndpoint().urlRequest(environment: .development)
        }
    }

    @Test func dataAndVoidResponsesDecode() throws {
        let url = URL(string: "https://a.b")!
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)!
        let data = Data("xyz".utf8)
        #expect(try RawEndpoint().decodeResponse(data, response: response) == data)
        try VoidEndpoint().decodeResponse(data, response: response)
    }
}
