import Endpoints
import EndpointsMocking
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct MockActionTests {
    @Test func returnAnswersWithTheValue() async throws {
        let user = try await withMock(UserEndpoint.self, action: .return(.init(id: 7, name: "Ada"))) {
            try await URLSession.shared.response(with: UserEndpoint(id: 7))
        }
        #expect(user == .init(id: 7, name: "Ada"))
    }

    @Test func returnErrorCarriesARealHTTPResponse() async throws {
        let error = APIError(code: 423, message: "Locked")
        await withMock(UserEndpoint.self, action: .returnError(error, status: 423, headers: ["Retry-After": "5"])) {
            do throws(UserEndpoint.TaskError) {
                _ = try await URLSession.shared.response(with: UserEndpoint(id: 3))
                Issue.record("a mocked error response must throw")
            } catch {
                guard case .errorResponse(let http, let body) = error else {
                    Issue.record("expected .errorResponse, got \(error)")
                    return
                }
                #expect(body == APIError(code: 423, message: "Locked"))
                #expect(http.statusCode == 423)
                #expect(http.value(forHTTPHeaderField: "Retry-After") == "5")
                #expect(http.url?.absoluteString == "http://127.0.0.1:9/users/3")
                #expect(error.statusCode == 423)
            }
        }
    }

    @Test func returnErrorWithAnEmptyBody() async throws {
        await withMock(ProfileEndpoint.self, action: .returnError(status: 404)) {
            await #expect {
                _ = try await URLSession.shared.response(with: ProfileEndpoint())
            } throws: { error in
                guard case .errorResponse(let http, _) = error as? ProfileEndpoint.TaskError else { return false }
                return http.statusCode == 404 && http.url?.absoluteString == "https://api.example.com/profile"
            }
        }
    }

    @Test func throwSurfacesTheTypedError() async throws {
        await withMock(ProfileEndpoint.self, action: .throw(.authenticationError(.notAuthenticated))) {
            await #expect {
                _ = try await URLSession.shared.response(with: ProfileEndpoint())
            } throws: { error in
                guard case .authenticationError(.notAuthenticated) = error as? ProfileEndpoint.TaskError else {
                    return false
                }
                return true
            }
        }
    }

    @Test func generateSeesTheEndpointValueAndMayThrow() async throws {
        let action = MockAction<UserEndpoint>.generate { endpoint in
            let id = endpoint.pathComponents.id
            guard id > 0 else { throw URLError(.badURL) }
            await Task.yield()
            return .init(id: id, name: "User \(id)")
        }
        try await withMock(UserEndpoint.self, action: action) {
            let user = try await URLSession.shared.response(with: UserEndpoint(id: 42))
            #expect(user == .init(id: 42, name: "User 42"))
            await #expect(throws: UserEndpoint.TaskError.self) {
                _ = try await URLSession.shared.response(with: UserEndpoint(id: -1))
            }
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration, ContinuousClock
    @Test func delayedAnswersAfterTheDelay() async throws {
        let value = try await withMock(
            ValueEndpoint.self,
            action: .delayed(by: .milliseconds(20), .return(.init(value: "late")))
        ) {
            try await URLSession.shared.response(with: ValueEndpoint("x"))
        }
        #expect(value.value == "late")
    }

    /// The mock answers after an hour: only the cancel can end the request before the time limit
    /// ends the test (a wall-clock bound of 30 s failed once beside two builds on two cores).
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration, .timeLimit
    @Test(.timeLimit(.minutes(10))) func cancellingADelayedMockCancelsTheRequest() async throws {
        await withMock(ValueEndpoint.self, action: .delayed(by: .seconds(3600), .return(.init(value: "never")))) {
            let request = Task { try await URLSession.shared.response(with: ValueEndpoint("x")) }
            request.cancel()
            let result = await request.result
            guard case .failure(let error) = result, case .cancelled = error as? ValueEndpoint.TaskError else {
                Issue.record("expected .cancelled, got \(result)")
                return
            }
        }
    }

    @Test func sequenceAnswersInOrderThenRepeatsTheLast() async throws {
        let action = MockAction<ValueEndpoint>.sequence([
            .throw(.internetConnectionOffline),
            .return(.init(value: "one")),
            .return(.init(value: "two")),
        ])
        try await withMock(ValueEndpoint.self, action: action) {
            await #expect(throws: ValueEndpoint.TaskError.self) {
                _ = try await URLSession.shared.response(with: ValueEndpoint("x"))
            }
            var values: [String] = []
            for _ in 0..<3 { values.append(try await URLSession.shared.response(with: ValueEndpoint("x")).value) }
            #expect(values == ["one", "two", "two"])
        }
    }

    @Test func customActionReturnsAWholeOutcome() async throws {
        let action = MockAction<ValueEndpoint> { endpoint in
            .success(.init(value: endpoint.parameterComponents.value.uppercased()))
        }
        let value = try await withMock(ValueEndpoint.self, action: action) {
            try await URLSession.shared.response(with: ValueEndpoint("shout"))
        }
        #expect(value.value == "SHOUT")
    }
}
