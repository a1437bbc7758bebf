import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `timeoutInterval` is an idle timeout on every platform; ``DeadlineMiddleware`` bounds the whole
/// exchange; a session's fractional `timeoutIntervalForRequest` is honoured on Linux too.
@Suite(.timingBound) struct TimeoutSemanticsTests {
    /// `GET /{route}` as raw bytes.
    struct RawEndpoint: Endpoint {
        typealias Server = LoopbackServer
        typealias Response = Data
        static let definition: Definition<RawEndpoint> = Definition(path: "\(path: \.route)")
        let pathComponents: Route
        init(_ route: String) { pathComponents = Route(route: route) }
    }

    /// `count` bytes, one every `pause` milliseconds.
    private func trickle(_ server: TestServer, every pause: Int, count: Int = 12) {
        let chunks = (0..<count).map { Data("\($0 % 10)".utf8) }
        server.route("/trickle") { _ in .streamed(chunks, pause: .milliseconds(pause)) }
    }

    @Test func aFractionalTimeoutIsIdleSoASteadyTrickleCompletes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // A byte every 100 ms for 10 s in all, under an 8.5 s idle timeout (generous for a loaded
        // machine's late first byte, and scaled under sanitizers): a total deadline would cut it off.
        trickle(server, every: 100, count: 100)
        let data = try await send(
            RawEndpoint("trickle"), to: server,
            middleware: [TimeoutMiddleware(seconds: 8.5 * TestTiming.scale)]
        ).get()
        #expect(data.count == 100)
    }

    @Test func aFractionalTimeoutStillCatchesAStall() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = try #require(
            await send(DelayEndpoint(milliseconds: 60_000), to: server, middleware: [TimeoutMiddleware(seconds: 0.5)])
                .failure())
        #expect(error.urlErrorCode == .timedOut, "got \(error)")
    }

    @Test func aDeadlineBoundsTheWholeExchangeHoweverSteadyTheBytes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        trickle(server, every: 1000)  // 12 s in all, never idle for more than a second
        let error = try #require(
            await send(
                RawEndpoint("trickle"), to: server,
                middleware: [DeadlineMiddleware(seconds: 0.5), TimeoutMiddleware(seconds: 5)]
            ).failure())
        #expect(error.urlErrorCode == .timedOut, "got \(error)")
    }

    @Test func aSessionsFractionalRequestTimeoutIsHonoured() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        // Fractional (also when scaled by 4), and long enough for a loaded machine to answer in time.
        let timeout = 8.3 * TestTiming.scale
        configuration.timeoutIntervalForRequest = timeout
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        // A prompt answer arrives (corelibs alone failed every request with a sub-second session
        // timeout at once, after 2 ms)...
        let echo = try await send(EchoEndpoint(), to: server, session: session).get()
        #expect(echo.path == "/echo")
        // ...and a stalled one times out, not before the fractional time (corelibs truncates it
        // to whole seconds; a lower bound holds however slow the machine).
        let start = DispatchTime.now().uptimeNanoseconds
        let error = try #require(
            await send(DelayEndpoint(milliseconds: 600_000), to: server, session: session).failure())
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        #expect(elapsed >= timeout, "timed out after \(elapsed) s")
        #expect(error.urlErrorCode == .timedOut, "got \(error)")
    }
}
