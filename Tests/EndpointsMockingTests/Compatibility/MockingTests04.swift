import Endpoints
import EndpointsMocking
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Combine)
    import Combine
#endif

// Endpoints 0.4's mocking tests (velos/Endpoints, main: Tests/EndpointsMockingTests/*.swift), run
// against this package. Both forms of 0.4's `withMock` work: the continuation closure and
// `action:` with `.return`, `.throw` and `.fail`. Mocks are task-scoped, so these run in parallel.
//
// One change, marked below: a `do/catch` that 0.4 let pass when nothing threw records an issue
// here, since a test that cannot fail proves nothing.

struct MockTestServer: ServerDefinition {
    var baseUrls: [Environments: URL] {
        return [
            .production: URL(string: "https://api.velosmobile.com")!
        ]
    }

    static var defaultEnvironment: Environments { .production }
}

struct MockSimpleEndpoint: Endpoint {
    typealias Server = MockTestServer

    static let definition: Definition<MockSimpleEndpoint> = Definition(
        method: .get,
        path: "user/\(path: \.name)/\(path: \.id)/profile"
    )

    struct Response: Codable {
        let response1: String
    }

    struct ErrorResponse: Codable, Equatable {
        let errorDescription: String
    }

    struct PathComponents {
        let name: String
        let id: String
    }

    let pathComponents: PathComponents
}

/// 0.4's helper (Tests/EndpointsMockingTests/Testing+Helpers.swift).
func wait<R: Sendable>(_ body: (CheckedContinuation<R, any Error>) throws -> Void) async throws -> R {
    return try await withCheckedThrowingContinuation { continuation in
        do {
            try body(continuation)
        } catch {
            continuation.resume(throwing: error)
        }
    }
}

@Suite("Async URLSession Mocking (0.4)")
struct AsyncURLSessionMocking04 {
    @Test func basicThrow() async throws {
        await #expect(throws: MockSimpleEndpoint.TaskError.self) {
            try await withMock(MockSimpleEndpoint.self) { continuation in
                continuation.resume(throwing: .internetConnectionOffline)
            } test: {
                let simple = MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b"))
                _ = try await URLSession.shared.response(with: simple)
            }
        }
    }

    @Test func basicThrowInline() async throws {
        await #expect(throws: MockSimpleEndpoint.TaskError.self) {
            try await withMock(MockSimpleEndpoint.self, action: .throw(.internetConnectionOffline)) {
                let simple = MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b"))
                _ = try await URLSession.shared.response(with: simple)
            }
        }
    }

    @Test func basicFail() async throws {
        try await withMock(MockSimpleEndpoint.self) { continuation in
            continuation.resume(failingWith: .init(errorDescription: "error"))
        } test: {
            let simple = MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b"))
            do {
                _ = try await URLSession.shared.response(with: simple)
                Issue.record("expected an error response")  // added: 0.4 passed when nothing threw
            } catch {
                let error = try #require(error as? MockSimpleEndpoint.TaskError)
                if case .errorResponse(_, let response) = error {
                    #expect(response.errorDescription == "error")
                } else {
                    #expect(Bool(false), "unexpected error \(error)")
                }
            }
        }
    }

    @Test func basicFailInline() async throws {
        try await withMock(MockSimpleEndpoint.self, action: .fail(.init(errorDescription: "error"))) {
            let simple = MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b"))
            do {
                _ = try await URLSession.shared.response(with: simple)
                Issue.record("expected an error response")  // added: 0.4 passed when nothing threw
            } catch {
                let error = try #require(error as? MockSimpleEndpoint.TaskError)
                if case .errorResponse(_, let response) = error {
                    #expect(response.errorDescription == "error")
                } else {
                    #expect(Bool(false), "unexpected error \(error)")
                }
            }
        }
    }

    @Test func basicResponse() async throws {
        try await withMock(MockSimpleEndpoint.self) { continuation in
            // possibly load mocks async from json
            continuation.resume(returning: .init(response1: "test"))
        } test: {
            let simple = MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b"))
            let response = try await URLSession.shared.response(with: simple)
            #expect(response.response1 == "test")
        }
    }

    @Test func basicResponseInline() async throws {
        try await withMock(MockSimpleEndpoint.self, action: .return(.init(response1: "test"))) {
            let simple = MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b"))
            let response = try await URLSession.shared.response(with: simple)
            #expect(response.response1 == "test")
        }
    }

    /// 0.4 sent the request when the closure did not resume; so does this package.
    @Test func continuationThatDoesNotResumePassesThrough() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/user/a/b/profile", .json(MockSimpleEndpoint.Response(response1: "network")))
        let response = try await withFakeTransport(fake) {
            try await withMock(MockSimpleEndpoint.self) { _ in
                // no resume
            } test: {
                try await URLSession.shared.response(
                    with: MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b")))
            }
        }
        #expect(response.response1 == "network")
        #expect(fake.requests.count == 1)
    }

    /// The continuation form is a `MockAction` too, so it goes in a registry and sees the endpoint.
    @Test func continuationActionInARegistry() async throws {
        let mocks = MockRegistry(strict: true)
        mocks.register(
            MockSimpleEndpoint.self,
            action: .continuation { continuation in
                guard continuation.endpoint.pathComponents.name == "a" else { return }
                continuation.resume(returning: .init(response1: "for a"))
            }
        )
        try await withMock(mocks) {
            let answered = try await URLSession.shared.response(
                with: MockSimpleEndpoint(pathComponents: .init(name: "a", id: "1")))
            #expect(answered.response1 == "for a")
            // Not resumed: the request passes the mock by, and a strict registry refuses it.
            let error = await #expect(throws: MockSimpleEndpoint.TaskError.self) {
                try await URLSession.shared.response(
                    with: MockSimpleEndpoint(pathComponents: .init(name: "z", id: "1")))
            }
            guard case .middlewareError(let underlying) = error else {
                Issue.record("expected UnmockedEndpointError, got \(String(describing: error))")
                return
            }
            #expect(underlying is UnmockedEndpointError)
        }
        #expect(mocks.callCount(to: MockSimpleEndpoint.self) == 2)
    }

    /// `.fail` carries a real status (400 unless given) and the endpoint's URL; 0.4's carried an
    /// empty `HTTPURLResponse`.
    @Test func failCarriesStatusAndURL() async throws {
        let error = await #expect(throws: MockSimpleEndpoint.TaskError.self) {
            try await withMock(MockSimpleEndpoint.self, action: .fail(.init(errorDescription: "gone"), status: 410)) {
                try await URLSession.shared.response(
                    with: MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b")))
            }
        }
        #expect(error?.httpResponse?.statusCode == 410)
        #expect(error?.httpResponse?.url?.absoluteString == "https://api.velosmobile.com/user/a/b/profile")
    }
}

@Suite("Closure URLSession Mocking (0.4)")
struct ClosureURLSessionMocking04 {

    @Test func inline() async throws {
        try await withMock(MockSimpleEndpoint.self, action: .return(.init(response1: "test"))) {
            try await wait { continuation in
                let simple = MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b"))
                let task = try URLSession.shared.endpointTask(with: simple) { result in
                    #expect(throws: Never.self) {
                        let response = try result.get()
                        #expect(response.response1 == "test")
                    }
                    continuation.resume()
                }
                task.resume()
            }
        }
    }

    @Test func inline2() async throws {
        try await withMock(MockSimpleEndpoint.self, action: .return(.init(response1: "test2"))) {
            try await wait { continuation in
                let simple = MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b"))
                let task = try URLSession.shared.endpointTask(with: simple) { result in
                    #expect(throws: Never.self) {
                        let response = try result.get()
                        #expect(response.response1 == "test2")
                    }
                    continuation.resume()
                }
                task.resume()
            }
        }
    }
}

#if canImport(Combine)
    @Suite("Combine URLSession Mocking (0.4)")
    struct CombineURLSessionMocking04 {
        // 0.4 awaited the first value with a small `PublisherWaiter`; `values` does the same.
        @Test(arguments: ["test", "test2"])
        func combineInline(response: String) async throws {
            try await withMock(MockSimpleEndpoint.self, action: .return(.init(response1: response))) {
                let simple = MockSimpleEndpoint(pathComponents: .init(name: "a", id: "b"))
                var iterator = URLSession.shared.endpointPublisher(with: simple).values.makeAsyncIterator()
                let endpointResponse = try #require(try await iterator.next())
                #expect(endpointResponse.response1 == response)
            }
        }
    }
#endif
