import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What reaches the server: no hidden retries, and a bounded number of connections per host,
/// through each transport (a session's credential storage through URLSession's alone).
@Suite struct PipelineConnectionTests {
    @Test(arguments: TestTransport.all)
    func unauthorizedReachesTheServerOnce(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/protected") { _ in
            var response = TestServer.Response.json(raw: #"{"code": 401, "message": "who are you"}"#, status: 401)
            response.headers.append((name: "WWW-Authenticate", value: #"Basic realm="test""#))
            return response
        }
        let error = try #require(await send(EchoEndpoint("protected"), to: server, via: transport).failure())
        #expect(error.statusCode == 401)
        #expect(server.requestCount == 1)
        // The server's own head, not one made up for it (corelibs ends the task without it).
        #expect(error.httpResponse?.value(forHTTPHeaderField: "WWW-Authenticate") == #"Basic realm="test""#)
    }

    /// A session whose credential storage holds a password for the realm still does not replay (a
    /// URLSession store: libcurl's transport has none).
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

    /// A session of the test's own, so that other tests' traffic does not churn its connection pool.
    private func withOwnSession<R>(_ body: (URLSession) async throws -> R) async rethrows -> R {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        return try await body(session)
    }

    @Test(arguments: TestTransport.all)
    func sixtyFourConcurrentRequestsShareAFewConnections(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        // Four in flight, the limit for a fast host, pinned: a suite loading both cores can make
        // loopback look slow (which limit a host gets is tested in `HostLimiterTests`).
        let paths = await withOwnSession { session in
            let four = PipelineOverrides(transport: transport.transport(session: session, maximumRequestsPerHost: 4))
            return await PipelineOverrides.$current.withValue(four) {
                await withTaskGroup(of: String?.self) { group in
                    for _ in 0..<64 {
                        group.addTask {
                            try? await send(EchoEndpoint("echo"), to: server, session: session, via: transport).get()
                                .path
                        }
                    }
                    var paths: [String?] = []
                    for await path in group { paths.append(path) }
                    return paths
                }
            }
        }
        #expect(paths == Array(repeating: "/echo", count: 64))
        #expect(server.requestCount == 64)
        // Measured here: 4 connections.
        #expect(server.connectionCount <= 8, "64 requests opened \(server.connectionCount) connections")
        print("PipelineConnectionTests: 64 concurrent requests opened \(server.connectionCount) connection(s)")
    }

    /// Sustained load is where URLSession on Linux churns connections beyond four requests in flight:
    /// four in flight, the pipeline's limit for a fast host, keep them. (Which limit a host gets is
    /// tested directly in `HostLimiterTests`: a suite loading both cores can make loopback look slow.)
    @Test(arguments: TestTransport.all)
    func sustainedLoadKeepsItsConnections(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let failures = await withOwnSession { session in
            let four = PipelineOverrides(transport: transport.transport(session: session, maximumRequestsPerHost: 4))
            return await PipelineOverrides.$current.withValue(four) {
                await withTaskGroup(of: Int.self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            var failures = 0
                            for _ in 0..<25 {
                                if case .failure = await send(
                                    EchoEndpoint("echo"), to: server, session: session, via: transport)
                                {
                                    failures += 1
                                }
                            }
                            return failures
                        }
                    }
                    return await group.reduce(0, +)
                }
            }
        }
        #expect(failures == 0)
        #expect(server.requestCount == 400)
        // Measured here: 4 with four in flight; 10 to 300 with no limit.
        #expect(
            server.connectionCount <= 8, "400 requests at 16 in flight opened \(server.connectionCount) connections")
        print("PipelineConnectionTests: 400 requests at 16 in flight opened \(server.connectionCount) connection(s)")
    }

    /// Cancellations racing the moment a request joins the queue: each waiter is failed exactly once.
    @Test(arguments: TestTransport.all)
    func cancellationsRacingTheQueueEachEndOnce(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let limited = PipelineOverrides(transport: transport.transport(maximumRequestsPerHost: 1))
        let errors = try await PipelineOverrides.$current.withValue(limited) {
            // Holds the only slot for the whole test; cancelled when the rounds are done.
            let blocker = Task { await send(HeldEndpoint(), to: server, via: transport) }
            defer { blocker.cancel() }
            try await waitForRequests(1, on: server)
            var errors: [EndpointTaskError<APIError>] = []
            for round in 0..<300 {
                let queued = Task { await send(EchoEndpoint("echo"), to: server, via: transport) }
                if round % 3 == 1 { await Task.yield() }
                if round % 3 == 2 { try await Task.sleep(nanoseconds: 10_000) }
                queued.cancel()
                if let error = await queued.value.failure() { errors.append(error) }
            }
            return errors
        }
        #expect(errors.count == 300)
        #expect(errors.allSatisfy { $0.isCancelled })
        #expect(server.requestCount == 1)
    }

    /// The blockers hold their slots for an hour: had the cancel not ended the queued request, it
    /// would wait for one of them, and the time limit ends the test instead.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // .timeLimit
    @Test(.timeLimit(.minutes(10)), arguments: TestTransport.all)
    func aQueuedRequestIsCancellableWhileQueued(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        // The limit explicitly (it is the default only on Linux).
        let limited = PipelineOverrides(transport: transport.transport(maximumRequestsPerHost: 4))
        try await PipelineOverrides.$current.withValue(limited) {
            try await cancelWhileQueued(on: server, via: transport)
        }
    }

    private func cancelWhileQueued(on server: TestServer, via transport: TestTransport) async throws {
        // Four slow requests fill the per-host limit of four…
        let blockers = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { _ = await send(HeldEndpoint(), to: server, via: transport) }
                }
            }
        }
        defer { blockers.cancel() }
        try await waitForRequests(4, on: server)
        // …so a fifth waits in the queue, where it is cancelled.
        let queued = Task { await send(EchoEndpoint("echo"), to: server, via: transport) }
        try await Task.sleep(nanoseconds: 100_000_000)
        queued.cancel()
        let error = try #require(await queued.value.failure())
        #expect(error.isCancelled, "got \(error)")
        #expect(server.requests.filter { $0.rawPath == "/echo" }.isEmpty, "the queued request was sent")
    }
}
