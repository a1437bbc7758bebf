import Endpoints
import EndpointsMocking
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct MockScopingTests {
    @Test func unregisteredEndpointsPassThroughToTheRealTransport() async throws {
        let server = try TestServer.withMockingRoutes()
        defer { server.stop() }
        try await Loopback.with(server) {
            try await withMock(UserEndpoint.self, action: .return(.init(id: 1, name: "mocked"))) {
                let user = try await URLSession.shared.response(with: UserEndpoint(id: 1))
                let value = try await URLSession.shared.response(with: ValueEndpoint("real"))
                #expect(user.name == "mocked")
                #expect(value.value == "real")
            }
        }
        #expect(server.requests.map(\.rawPath) == ["/value"])
    }

    @Test func nestedScopesMerge() async throws {
        try await withMock(UserEndpoint.self, action: .return(.init(id: 1, name: "outer"))) {
            try await withMock(ValueEndpoint.self, action: .return(.init(value: "inner"))) {
                let user = try await URLSession.shared.response(with: UserEndpoint(id: 1))
                let value = try await URLSession.shared.response(with: ValueEndpoint("x"))
                #expect(user.name == "outer")
                #expect(value.value == "inner")
            }
        }
    }

    @Test func innerMockShadowsOuterForItsScopeOnly() async throws {
        try await withMock(UserEndpoint.self, action: .return(.init(id: 1, name: "outer"))) {
            let inner = try await withMock(UserEndpoint.self, action: .return(.init(id: 1, name: "inner"))) {
                try await URLSession.shared.response(with: UserEndpoint(id: 1))
            }
            let after = try await URLSession.shared.response(with: UserEndpoint(id: 1))
            #expect(inner.name == "inner")
            #expect(after.name == "outer")
        }
    }

    @Test func mocksEndWithTheirScope() async throws {
        let server = try TestServer.withMockingRoutes()
        defer { server.stop() }
        try await Loopback.with(server) {
            try await withMock(UserEndpoint.self, action: .return(.init(id: 5, name: "mocked"))) {
                _ = try await URLSession.shared.response(with: UserEndpoint(id: 5))
            }
            let user = try await URLSession.shared.response(with: UserEndpoint(id: 5))
            #expect(user.name == "server 5")
        }
    }

    @Test func concurrentScopesMockingTheSameEndpointNeverSeeEachOther() async throws {
        let mismatches = await withTaskGroup(of: Int.self, returning: Int.self) { group in
            for index in 0..<100 {
                group.addTask {
                    await withMock(UserEndpoint.self, action: .return(.init(id: index, name: "child \(index)"))) {
                        var wrong = 0
                        for _ in 0..<5 {
                            await Task.yield()
                            let user = try? await URLSession.shared.response(with: UserEndpoint(id: 0))
                            if user?.name != "child \(index)" || user?.id != index { wrong += 1 }
                        }
                        return wrong
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func childTasksInheritTheScope() async throws {
        try await withMock(ValueEndpoint.self, action: .return(.init(value: "inherited"))) {
            async let fromAsyncLet = URLSession.shared.response(with: ValueEndpoint("a"))
            let fromTask = Task { try await URLSession.shared.response(with: ValueEndpoint("b")) }
            let fromGroup = try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask { try await URLSession.shared.response(with: ValueEndpoint("c")).value }
                return try await group.next()
            }
            #expect(try await fromAsyncLet.value == "inherited")
            #expect(try await fromTask.value.value == "inherited")
            #expect(fromGroup == "inherited")
        }
    }

    @Test func completionHandlerTasksHonourMocks() async throws {
        let result = await withMock(MyEndpoint.self, action: .return(.init(resourceId: "cb", resourceName: "Task"))) {
            await withCheckedContinuation { continuation in
                let task = try! URLSession.shared.endpointTask(with: MyEndpoint()) { result in
                    continuation.resume(returning: result)
                }
                task.resume()
            }
        }
        #expect(try result.get() == MyEndpoint.Response(resourceId: "cb", resourceName: "Task"))
    }

    @Test func completionHandlerTasksHonourMockedErrors() async throws {
        let result = await withMock(MyEndpoint.self, action: .returnError(status: 503)) {
            await withCheckedContinuation { continuation in
                try! URLSession.shared.endpointTask(with: MyEndpoint()) { result in
                    continuation.resume(returning: result)
                }.resume()
            }
        }
        guard case .failure(.errorResponse(let http, _)) = result else {
            Issue.record("expected a 503 error response, got \(result)")
            return
        }
        #expect(http.statusCode == 503)
    }
}
