import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Combine)
    import Combine
#endif

// The README's samples, as written there (scripts/check-readme-samples.py checks that every
// sample line appears here or in another test). Each sample lives in its own namespace because
// several of them declare an `ApiServer`.

enum ReadmeServerSample {
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

    struct SearchPosts: Endpoint {
        typealias Server = ApiServer
        typealias ErrorResponse = ApiError

        struct PathComponents { let userId: Int }
        struct ParameterComponents { let term: String; let page: Int? }
        struct HeaderComponents { let requestId: String }
        struct Response: Decodable { let titles: [String] }

        static let definition: Definition<SearchPosts> = Definition(
            method: .get,
            path: "users/\(path: \.userId)/posts",
            parameters: [
                .query("q", path: \.term),
                .query("page", path: \.page),  // nil leaves it out
                .queryValue("format", value: "full"),
            ],
            headers: [
                Header("X-Request-Id").value(path: \.requestId),
                Header.accept.value("application/json"),
            ]
        )

        let pathComponents: PathComponents
        let parameterComponents: ParameterComponents
        let headerComponents: HeaderComponents
    }

    struct ApiError: Decodable, Sendable {
        let code: Int
        let message: String
    }

    static func usage() async throws {
        let request = try MyEndpoint().urlRequest(environment: .staging)
        // https://staging-api.example.com/path/to/resource
        _ = request

        do {
            let response = try await URLSession.shared.response(with: MyEndpoint())
            // handle response
            _ = response
        } catch {
            // handle error
        }

        let task = try URLSession.shared.endpointTask(with: MyEndpoint()) { result in
            switch result {
            case .success(let response): print(response.resourceName)
            case .failure(let error): print(error)
            }
        }
        task.resume()
    }

    #if canImport(Combine)
        static func combine(cancellables: inout Set<AnyCancellable>) {
            URLSession.shared.endpointPublisher(with: MyEndpoint())
                .sink { completion in
                    guard case .failure(let error) = completion else { return }
                    // handle error
                    _ = error
                } receiveValue: { (response: MyEndpoint.Response) in
                    // handle MyEndpoint.Response
                    _ = response
                }
                .store(in: &cancellables)
        }
    #endif
}

@Suite struct ReadmeSampleTests {
    typealias Sample = ReadmeServerSample

    @Test func buildingWithoutSendingUsesTheNamedEnvironment() throws {
        let request = try Sample.MyEndpoint().urlRequest(environment: .staging)
        #expect(request.url?.absoluteString == "https://staging-api.example.com/path/to/resource")
    }

    @Test func searchPostsBuildsPathQueryAndHeaders() throws {
        let endpoint = Sample.SearchPosts(
            pathComponents: .init(userId: 42),
            parameterComponents: .init(term: "swift & linux", page: nil),
            headerComponents: .init(requestId: "r-1")
        )
        let request = try endpoint.urlRequest()
        let expected = "https://api.example.com/users/42/posts?q=swift%20%26%20linux&format=full"
        #expect(request.url?.absoluteString == expected)
        #expect(request.value(forHTTPHeaderField: "X-Request-Id") == "r-1")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
    }
}

extension ReadmeServerSample {
    static func sendSearch() async throws {
        let posts = try await URLSession.shared.response(
            with: SearchPosts(
                pathComponents: .init(userId: 42),
                parameterComponents: .init(term: "swift & linux", page: nil),
                headerComponents: .init(requestId: "r-1")
            ))
        _ = posts
    }
}

// "Transforming responses and convenience constructors"

private struct UsersEndpoint: Endpoint {
    typealias Server = ReadmeServerSample.ApiServer
    struct User: Decodable { let name: String }
    typealias Response = [User]
    static let definition: Definition<UsersEndpoint> = Definition(method: .get, path: "users")
}

private struct AgeEndpoint: Endpoint {
    typealias Server = ReadmeServerSample.ApiServer
    struct Response: Decodable { let name: String; let age: Int }
    struct ParameterComponents { let name: String }
    static let definition: Definition<AgeEndpoint> = Definition(path: "age", parameters: [.query("name", path: \.name)])
    let parameterComponents: ParameterComponents
}

extension Endpoint where Self == AgeEndpoint {
    fileprivate static func estimatedAge(forName name: String) -> Self {
        AgeEndpoint(parameterComponents: .init(name: name))
    }
}

enum ReadmeMapSample {
    static func send() async throws {
        let names = try await URLSession.shared.response(with: UsersEndpoint().map { $0.map(\.name) })
        let person = try await URLSession.shared.response(with: .estimatedAge(forName: "Zaid"))
        _ = (names, person)
    }
}

@Suite struct ReadmeMapSampleTests {
    @Test func leadingDotFactoryBuildsTheNamedRequest() throws {
        let request = try AgeEndpoint.estimatedAge(forName: "Zaid").urlRequest()
        #expect(request.url?.absoluteString == "https://api.example.com/age?name=Zaid")
        #expect(try UsersEndpoint().map(\.count).urlRequest() == UsersEndpoint().urlRequest())
    }
}
