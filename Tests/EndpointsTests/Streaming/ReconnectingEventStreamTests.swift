import EndpointsTestServer
import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /{route}` read as server-sent events.
struct NotificationStream: Endpoint {
    typealias Server = LoopbackServer
    typealias Response = Data
    typealias ErrorResponse = APIError

    static let definition: Definition<NotificationStream> = Definition(path: "\(path: \.route)")

    let pathComponents: Route

    init(_ route: String = "events") { pathComponents = Route(route: route) }
}

/// Reconnection as `EventSource` does it: after a drop or a clean end, with `Last-Event-ID`.
@Suite struct ReconnectingEventStreamTests {
    private static let quick = ReconnectionPolicy(delay: 0.01, maximumDelay: 0.05, maximumAttempts: 3)

    private static func events(_ text: String, then ending: TestServer.Response.StreamEnding = .end)
        -> TestServer.Response
    {
        .streamed([Data(text.utf8)], contentType: "text/event-stream", then: ending)
    }

    /// Serves `answers` one per connection, recording each request's `Last-Event-ID`.
    private static func serve(
        _ answers: [TestServer.Response], on server: TestServer
    ) -> LockedBox<[String?]> {
        let seen = LockedBox<[String?]>([])
        server.route("/events") { request in
            var index = 0
            seen.mutate {
                $0.append(request.header("Last-Event-ID"))
                index = $0.count - 1
            }
            return index < answers.count ? answers[index] : TestServer.Response(status: 204)
        }
        return seen
    }

    private static func collect(
        _ stream: EndpointStream<NotificationStream, ServerSentEvent>
    ) async throws(NotificationStream.TaskError) -> [String] {
        var data: [String] = []
        for try await event in stream { data.append(event.data) }
        return data
    }

    @Test func aCleanEndReconnectsWithTheLastEventIDUntilA204() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let seen = Self.serve(
            [
                Self.events("id: 1\ndata: a\n\nretry: 10\nid: 2\ndata: b\n\n"),
                Self.events("id: 3\ndata: c\n\n"),
            ], on: server)
        let data = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await Self.collect(URLSession.shared.bytes(for: NotificationStream()).events.reconnecting(Self.quick))
        }
        #expect(data == ["a", "b", "c"])
        #expect(seen.value == [nil, "2", "3"])
    }

    @Test func aDroppedConnectionReconnects() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let seen = Self.serve(
            [Self.events("id: 7\ndata: before\n\n", then: .drop), Self.events("data: after\n\n")], on: server)
        let data = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await Self.collect(URLSession.shared.bytes(for: NotificationStream()).events.reconnecting(Self.quick))
        }
        #expect(data == ["before", "after"])
        #expect(seen.value == [nil, "7", "7"])
    }

    @Test func aNon2xxOnReconnectingThrowsTheTypedError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = Self.serve(
            [Self.events("id: 1\ndata: a\n\n"), .json(["code": "gone", "message": "stream closed"], status: 410)],
            on: server)
        var data: [String] = []
        let error = await #expect(throws: NotificationStream.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                for try await event in try await URLSession.shared.bytes(for: NotificationStream()).events
                    .reconnecting(Self.quick)
                {
                    data.append(event.data)
                }
            }
        }
        #expect(data == ["a"])
        #expect(error?.statusCode == 410)
        #expect(server.requestCount == 2)
    }

    @Test func failedReconnectionsInARowEndWithTheLastError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // Every connection drops before its first event: the first open and three reconnections.
        _ = Self.serve(Array(repeating: Self.events("data: cut", then: .drop), count: 10), on: server)
        let error = await #expect(throws: NotificationStream.TaskError.self) {
            try await Loopback.$baseURL.withValue(server.baseURL) {
                try await Self.collect(
                    URLSession.shared.bytes(for: NotificationStream()).events.reconnecting(Self.quick))
            }
        }
        #expect(error?.urlErrorCode != nil, "got \(String(describing: error))")
        #expect(server.requestCount == 4)
    }

    @Test func withoutReconnectsWhenEndedACleanEndEnds() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = Self.serve([Self.events("data: once\n\n"), Self.events("data: again\n\n")], on: server)
        let policy = ReconnectionPolicy(
            delay: 0.01, maximumDelay: 0.05, maximumAttempts: 3, reconnectsWhenEnded: false)
        let data = try await Loopback.$baseURL.withValue(server.baseURL) {
            try await Self.collect(URLSession.shared.bytes(for: NotificationStream()).events.reconnecting(policy))
        }
        #expect(data == ["once"])
        #expect(server.requestCount == 1)
    }

    @Test func cancellingDuringTheWaitEndsAtOnceAsCancelled() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = Self.serve([Self.events("data: a\n\n")], on: server)
        let first = AsyncStream<Void>.makeStream()
        let slow = ReconnectionPolicy(delay: 600, maximumDelay: 600)
        let reader = Task { () async -> NotificationStream.TaskError? in
            // The task-local base URL wraps the loop, which reconnects.
            await Loopback.$baseURL.withValue(server.baseURL) { () async -> NotificationStream.TaskError? in
                do throws(NotificationStream.TaskError) {
                    for try await _ in try await URLSession.shared.bytes(for: NotificationStream()).events.reconnecting(
                        slow)
                    {
                        first.continuation.yield()
                    }
                    return nil
                } catch {
                    return error
                }
            }
        }
        for await _ in first.stream { break }
        reader.cancel()
        #expect(await reader.value?.isCancelled == true)
        #expect(server.requestCount == 1)
    }

    @Test func theWaitDoublesPerFailureUpToTheMaximum() {
        let policy = ReconnectionPolicy(delay: 1, maximumDelay: 5)
        #expect([1, 2, 3, 4].map { policy.wait(base: 1, failures: $0) } == [1, 2, 4, 5])
        #expect(policy.wait(base: 0.5, failures: 0) == 0.5)
    }
}
