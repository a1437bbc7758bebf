import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What reaches the server: no hidden retries, and a bounded number of connections per host.
@Suite struct PipelineConnectionTests {
    @Test func unauthorizedReachesTheServerOnce() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/protected") { _ in
            var response = TestServer.Response.json(raw: #"{"code": 401, "message": "who are you"}"#, status: 401)
            response.headers.append((name: "WWW-Authenticate", value: #"Basic realm="test""#))
            return response
        }
        let error = try #require(await send(EchoEndpoint("protected"), to: server).failure())
        #expect(error.statusCode == 401)
        #expect(server.requestCount == 1)
    }

    /// A session whose credential storage holds a password for the realm still does not replay.
    @Test func unauthorizedIsNotReplayedFromCredentialStorage() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/protected") { _ in
            var response = TestServer.Response.json(raw: #"{"code": 401, "message": "who are you"}"#, status: 401)
            response.headers.append((name: "WWW-Authenticate", value: #"Basic realm="test""#))
            return response
        }
        let storage = URLCredentialStorage.shared
        let space = URLProtectionSpace(
            host: "127.0.0.1",
            port: Int(server.port),
            protocol: "http",
            realm: "test",
            authenticationMethod: NSURLAuthenticationMethodHTTPBasic
        )
        let credential = URLCredential(user: "user", password: "stored-password", persistence: .forSession)
        storage.setDefaultCredential(credential, for: space)
        defer { storage.remove(credential, for: space) }
        let error = try #require(await send(EchoEndpoint("protected"), to: server).failure())
        #expect(error.statusCode == 401)
        #expect(server.requestCount == 1)
        #expect(server.requests.allSatisfy { $0.header("Authorization") == nil })
    }

    @Test func sixtyFourConcurrentRequestsShareAFewConnections() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let paths = await withTaskGroup(of: String?.self) { group in
            for index in 0..<64 {
                group.addTask { try? await send(EchoEndpoint("echo"), to: server).get().path + "#\(index)" }
            }
            var paths: [String] = []
            for await path in group { paths.append(path ?? "failed") }
            return paths
        }
        #expect(paths.count == 64)
        #expect(!paths.contains("failed"))
        #expect(server.requestCount == 64)
        // The default limit is 4 in flight per host on Linux; allow for a reconnect or two.
        #expect(server.connectionCount <= 8, "64 requests opened \(server.connectionCount) connections")
        print("PipelineConnectionTests: 64 concurrent requests opened \(server.connectionCount) connection(s)")
    }

    @Test func aQueuedRequestIsCancellableWhileQueued() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // The limit explicitly (it is the default only on Linux).
        let limited = PipelineOverrides(transport: URLSessionTransport(session: .shared, maximumRequestsPerHost: 4))
        try await PipelineOverrides.$current.withValue(limited) {
            try await cancelWhileQueued(on: server)
        }
    }

    private func cancelWhileQueued(on server: TestServer) async throws {
        // Four slow requests fill the per-host limit of four…
        let blockers = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { _ = await send(DelayEndpoint(milliseconds: 3000), to: server) }
                }
            }
        }
        defer { blockers.cancel() }
        try await waitForRequests(4, on: server)
        // …so a fifth waits in the queue, where it is cancelled.
        let queued = Task { await send(EchoEndpoint("echo"), to: server) }
        try await Task.sleep(nanoseconds: 100_000_000)
        let clock = ContinuousClock()
        let cancelledAt = clock.now
        queued.cancel()
        let error = try #require(await queued.value.failure())
        #expect(error.isCancelled, "got \(error)")
        #expect(clock.now - cancelledAt < .seconds(1))
        #expect(server.requests.filter { $0.rawPath == "/echo" }.isEmpty, "the queued request was sent")
    }
}
