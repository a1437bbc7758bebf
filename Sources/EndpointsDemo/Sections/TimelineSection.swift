import Endpoints

/// One request's timeline: a client with an event listener sends `GET status` (a 503 every other
/// call, retried after its `Retry-After`), prints the events as they arrive, then the metrics
/// that came with the response.
enum TimelineSection {
    static func run(_ tour: Tour) async throws {
        let say = tour.transcript
        say.section("One request's timeline: events and metrics")
        var finished: AsyncStream<RequestEvent>.Continuation!
        let events = AsyncStream<RequestEvent> { finished = $0 }
        let client = EndpointClient(
            session: .shared,
            middleware: [RetryMiddleware(), TraceContextMiddleware()] + tour.middleware,
            eventListener: StreamingListener(continuation: finished))
        let result = try await client.typedResponse(with: ServiceStatus(), environment: tour.production)
        // The events arrive off the request's path: read them until the request's last one.
        for await event in events {
            say.note(event.description)
            if case .finished = event.kind { break }
        }
        say.line("GET status → \"\(result.value.status)\", its metrics:")
        say.note(result.metrics.description)
    }

    /// Hands each event to an `AsyncStream`.
    struct StreamingListener: RequestEventListener {
        let continuation: AsyncStream<RequestEvent>.Continuation

        func receive(_ event: RequestEvent) { continuation.yield(event) }
    }
}
