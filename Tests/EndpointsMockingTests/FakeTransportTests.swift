import Endpoints
import EndpointsMocking
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct FakeTransportTests {
    @Test func statusHeadersAndBodyReachTheDecoder() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/users/7", .json(UserEndpoint.Response(id: 7, name: "Ada"), headers: ["X-Trace": "t1"]))
        let user = try await withFakeTransport(fake) {
            try await URLSession.shared.response(with: UserEndpoint(id: 7))
        }
        #expect(user == .init(id: 7, name: "Ada"))
        #expect(fake.requests.map(\.description) == ["GET /users/7 (0 bytes)"])
    }

    @Test func errorStatusesDecodeAsTheTypedErrorResponse() async throws {
        let fake = FakeHTTPTransport()
        fake.register(
            .get, "/users/1", .json(APIError(code: 404, message: "gone"), status: 404, headers: ["X-Why": "deleted"]))
        await withFakeTransport(fake) {
            do throws(UserEndpoint.TaskError) {
                _ = try await URLSession.shared.response(with: UserEndpoint(id: 1))
                Issue.record("a 404 must throw")
            } catch {
                guard case .errorResponse(let http, let body) = error else {
                    Issue.record("expected .errorResponse, got \(error)")
                    return
                }
                #expect(body == APIError(code: 404, message: "gone"))
                #expect(http.statusCode == 404)
                #expect(http.value(forHTTPHeaderField: "X-Why") == "deleted")
                #expect(http.url?.path == "/users/1")
            }
        }
    }

    @Test func aBodyThatDoesNotDecodeIsAResponseParseError() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/users/2", .json(raw: #"{"id": "two"}"#))
        await withFakeTransport(fake) {
            await #expect {
                _ = try await URLSession.shared.response(with: UserEndpoint(id: 2))
            } throws: { error in
                guard case .responseParseError(let http, _, let failure) = error as? UserEndpoint.TaskError else {
                    return false
                }
                return http.statusCode == 200 && failure.codingPath == "id"
            }
        }
    }

    @Test func anUnmatchedRequestFailsLoudly() async throws {
        let fake = FakeHTTPTransport()
        await withFakeTransport(fake) {
            await #expect {
                _ = try await URLSession.shared.response(with: UserEndpoint(id: 3))
            } throws: { error in
                guard case .middlewareError(let underlying) = error as? UserEndpoint.TaskError else { return false }
                return underlying as? UnmatchedRequestError == UnmatchedRequestError(method: "GET", path: "/users/3")
            }
        }
        #expect(fake.requests.count == 1)
    }

    @Test func aHandlerThrowingURLErrorIsALoadError() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/users/4") { _ in throw URLError(.timedOut) }
        await withFakeTransport(fake) {
            await #expect {
                _ = try await URLSession.shared.response(with: UserEndpoint(id: 4))
            } throws: { error in
                guard case .urlLoadError(let urlError) = error as? UserEndpoint.TaskError else { return false }
                return urlError.code == .timedOut
            }
        }
    }

    @Test func handlersSeeTheBodyAndTheMiddlewaresHeaders() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.post, "/v1/token/refresh") { request in
            let body = try request.decodeBody(TokenRefreshEndpoint.Body.self)
            return .json(TokenRefreshEndpoint.Response(access: "for-\(body.refreshToken)", refresh: "next"))
        }
        let tokens = try await withFakeTransport(fake) {
            try await URLSession.shared.response(with: TokenRefreshEndpoint(refreshToken: "r9"))
        }
        #expect(tokens.access == "for-r9")
        let request = try #require(fake.requests(.post, "/v1/token/refresh").first)
        #expect(request.header("x-tag") == "fake")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.context?.endpointName == "TokenRefreshEndpoint")
    }

    @Test func successiveResponsesThenTheLastRepeats() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/value", responses: [.status(503), .json(["value": "ok"])])
        try await withFakeTransport(fake) {
            await #expect(throws: ValueEndpoint.TaskError.self) {
                _ = try await URLSession.shared.response(with: ValueEndpoint("x"))
            }
            let first = try await URLSession.shared.response(with: ValueEndpoint("x"))
            let second = try await URLSession.shared.response(with: ValueEndpoint("y"))
            #expect([first.value, second.value] == ["ok", "ok"])
        }
        #expect(fake.requests.compactMap { $0.queryValue("value") } == ["x", "x", "y"])
    }

    @Test func fallbackClosuresAnswerWhatNoRouteMatches() async throws {
        let fake = FakeHTTPTransport()
        fake.register { request in request.path.hasPrefix("/nothing") ? .status(500) : nil }
        fake.register { request in
            guard request.path.hasPrefix("/users/"), let id = Int(request.path.dropFirst(7)) else { return nil }
            return .json(UserEndpoint.Response(id: id, name: "generated"))
        }
        let users = try await withFakeTransport(fake) {
            [
                try await URLSession.shared.response(with: UserEndpoint(id: 11)),
                try await URLSession.shared.response(with: UserEndpoint(id: 12)),
            ]
        }
        #expect(users.map(\.id) == [11, 12])
    }

    @Test func theFakeIsScopedToItsTaskTree() async throws {
        let server = try TestServer.withMockingRoutes()
        defer { server.stop() }
        let fake = FakeHTTPTransport()
        fake.register(.get, "/value", .json(["value": "fake"]))
        try await Loopback.with(server) {
            let inside = try await withFakeTransport(fake) {
                try await URLSession.shared.response(with: ValueEndpoint("real"))
            }
            let outside = try await URLSession.shared.response(with: ValueEndpoint("real"))
            #expect(inside.value == "fake")
            #expect(outside.value == "real")
        }
        #expect(server.requestCount == 1)
    }

    @Test func typedMocksAnswerBeforeTheFakeInEitherOrder() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/users/1", .json(UserEndpoint.Response(id: 1, name: "fake")))
        fake.register(.get, "/value", .json(["value": "fake"]))
        try await withFakeTransport(fake) {
            try await withMock(UserEndpoint.self, action: .return(.init(id: 1, name: "mock"))) {
                let user = try await URLSession.shared.response(with: UserEndpoint(id: 1))
                let value = try await URLSession.shared.response(with: ValueEndpoint("v"))
                #expect(user.name == "mock")
                #expect(value.value == "fake")
            }
        }
        let user = try await withMock(UserEndpoint.self, action: .return(.init(id: 1, name: "mock"))) {
            try await withFakeTransport(fake) { try await URLSession.shared.response(with: UserEndpoint(id: 1)) }
        }
        #expect(user.name == "mock")
        #expect(fake.requests.map(\.path) == ["/value"])
    }

    @Test func completionHandlerTasksUseTheFake() async throws {
        let fake = FakeHTTPTransport()
        fake.register(.get, "/path/to/resource", .json(raw: #"{"resourceId": "9", "resourceName": "cb"}"#))
        let result = await withFakeTransport(fake) {
            await withCheckedContinuation { continuation in
                try! URLSession.shared.endpointTask(with: MyEndpoint()) { continuation.resume(returning: $0) }.resume()
            }
        }
        #expect(try result.get().resourceId == "9")
    }

    @Test func parallelTestsEachUseTheirOwnFake() async throws {
        let wrong = await withTaskGroup(of: Int.self, returning: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let fake = FakeHTTPTransport()
                    fake.register(.get, "/value", .json(["value": "\(index)"]))
                    return await withFakeTransport(fake) {
                        let value = try? await URLSession.shared.response(with: ValueEndpoint("q"))
                        return value?.value == "\(index)" && fake.requests.count == 1 ? 0 : 1
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
}
