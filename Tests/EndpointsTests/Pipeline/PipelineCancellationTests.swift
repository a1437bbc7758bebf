import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cancellation and timeouts end a request promptly, with the typed error.
///
/// The time bounds here are generous upper limits on "promptly", not measurements: each is far
/// below the time the server takes to answer (60 s), so "cancelled promptly" and "waited for the
/// response" stay distinguishable on a loaded machine, scaled by `ENDPOINTS_TEST_TIME_SCALE`.
@Suite struct PipelineCancellationTests {
    /// The server answers after an hour, and the request's timeout is an hour: only the cancel can
    /// end it before the time limit ends the test (a wall-clock bound failed plain `swift test`
    /// beside two builds, where the machine stalled a test's tasks for half a minute).
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // .timeLimit
    @Test(.timeLimit(.minutes(10)), arguments: TestTransport.all)
    func cancellingTheTaskCancelsTheRequestPromptly(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let request = Task { await send(HeldEndpoint(), to: server, via: transport) }
        try await waitForRequests(1, on: server)
        request.cancel()
        let error = try #require(await request.value.failure())
        #expect(error.isCancelled, "got \(error)")
    }

    @Test(arguments: TestTransport.all)
    func aTaskCancelledBeforeSendingSendsNothing(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let request = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await send(EchoEndpoint(), to: server, via: transport)
        }
        let error = try #require(await request.value.failure())
        #expect(error.isCancelled, "got \(error)")
        #expect(server.requestCount == 0)
    }

    /// Through each transport as it comes most of these wait in the per-host queue; this cancels
    /// them there.
    @Test(arguments: TestTransport.all)
    func twoHundredConcurrentCancelsThroughTheDefaultTransport(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let outcomes = try await cancelMany(200, on: server, via: transport, override: nil)
        #expect(outcomes.count == 200)
        #expect(outcomes.allSatisfy { $0.isCancelled })
    }

    /// With no per-host limit every one of these is a live data task (a live libcurl transfer) when
    /// it is cancelled.
    @Test(arguments: TestTransport.all)
    func twoHundredConcurrentCancelsOfLiveDataTasks(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        // libcurl's transport always has a limit: one of 200 lets every request through.
        let unlimited =
            transport == .urlSession
            ? URLSessionTransport(session: .shared, maximumRequestsPerHost: nil)
            : transport.transport(maximumRequestsPerHost: 200)
        let outcomes = try await cancelMany(200, on: server, via: transport, override: unlimited)
        #expect(outcomes.count == 200)
        #expect(outcomes.allSatisfy { $0.isCancelled })
    }

    /// Starts `count` slow requests, waits until some reached the server, cancels them all.
    /// Through `transport`, or `override` (a transport of the same kind with its own limit) instead.
    private func cancelMany(
        _ count: Int,
        on server: TestServer,
        via transport: TestTransport,
        override: (any HTTPTransport)?
    ) async throws -> [EndpointTaskError<APIError>] {
        let group = Task {
            await PipelineOverrides.$current.withValue(PipelineOverrides(transport: override)) {
                await withTaskGroup(of: Result<Echo, EndpointTaskError<APIError>>.self) { group in
                    for _ in 0..<count {
                        group.addTask { await send(DelayEndpoint(milliseconds: 60_000), to: server, via: transport) }
                    }
                    var errors: [EndpointTaskError<APIError>] = []
                    for await result in group {
                        if case .failure(let error) = result { errors.append(error) }
                    }
                    return errors
                }
            }
        }
        try await waitForRequests(min(count, 4), on: server)
        group.cancel()
        return await group.value
    }

    /// corelibs truncates 0.5 s to 0, which means "no timeout": the request would wait for the
    /// 60 s response. It must time out instead, through each transport. No clock is read: racing it against a longer
    /// timeout failed on a loaded machine whenever the longer one's task was scheduled first.
    @Test(arguments: TestTransport.all)
    func fractionalTimeoutFailsAsTimedOut(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let result = await send(
            DelayEndpoint(milliseconds: 60_000), to: server, via: transport,
            middleware: [TimeoutMiddleware(seconds: 0.5)])
        let error = try #require(result.failure())
        #expect(error.urlErrorCode == .timedOut, "got \(error)")
    }

    /// Through URLSession, corelibs' own timeout (whole seconds) ends it; through libcurl's
    /// transport, the transport's.
    @Test(arguments: TestTransport.all)
    func wholeSecondTimeoutIsLeftToURLSession(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let result = await send(
            DelayEndpoint(milliseconds: 60_000), to: server, via: transport, middleware: [TimeoutMiddleware(seconds: 1)]
        )
        let error = try #require(result.failure())
        #expect(error.urlErrorCode == .timedOut, "got \(error)")
    }

    @Test(arguments: TestTransport.all)
    func aTimeoutLongerThanTheResponseDoesNotFire(via transport: TestTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let echo = try await send(
            DelayEndpoint(milliseconds: 50),
            to: server, via: transport,
            middleware: [TimeoutMiddleware(seconds: 20.5 * TestTiming.scale)]
        ).get()
        #expect(echo.path == "/delay/50")
    }
}
