import Endpoints

/// One request's timeline: the platform's default client (libcurl on Linux) with an event listener
/// sends `GET status` (a 503 every other call, retried after its `Retry-After`), prints the events
/// as they arrive, the metrics that came with the response, and what the transport measured of
/// the connection.
enum TimelineSection {
    static func run(_ tour: Tour) async throws {
        let say = tour.transcript
        say.section("One request's timeline: events and metrics")
        var finished: AsyncStream<RequestEvent>.Continuation!
        let events = AsyncStream<RequestEvent> { finished = $0 }
        let client = EndpointClient(
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
        // Linux's URLSession never reports these; libcurl and Apple's URLSession do.
        guard let connection = result.metrics.attempts.last?.connection else {
            say.line("(this transport reports no connection timings)")
            return
        }
        say.line("The last attempt's connection, as the transport measured it:")
        say.note(Self.describe(connection))
    }

    /// `http/1.1 to 127.0.0.1:52731, reused connection, first byte 1.2 ms, total 1.3 ms, 212 B sent, 250 B received`.
    static func describe(_ connection: RequestMetrics.ConnectionMetrics) -> String {
        func ms(_ seconds: TimeInterval?) -> String? { seconds.map { String(format: "%.1f ms", $0 * 1000) } }
        var parts = ["\(connection.networkProtocol ?? "?") to \(connection.remoteAddress ?? "?")"]
        if connection.reusedConnection {
            parts.append("reused connection")
        } else {
            parts.append("new connection")
            if let lookup = ms(connection.domainLookup) { parts.append("DNS \(lookup)") }
            if let connect = ms(connection.connect) { parts.append("connect \(connect)") }
            if let tls = ms(connection.secureConnection) { parts.append("TLS \(tls)") }
        }
        if let firstByte = ms(connection.firstByte) { parts.append("first byte \(firstByte)") }
        if let total = ms(connection.total) { parts.append("total \(total)") }
        if let sent = connection.bytesSent { parts.append("\(sent) B sent") }
        if let received = connection.bytesReceived { parts.append("\(received) B received") }
        return parts.joined(separator: ", ")
    }

    /// Hands each event to an `AsyncStream`.
    struct StreamingListener: RequestEventListener {
        let continuation: AsyncStream<RequestEvent>.Continuation

        func receive(_ event: RequestEvent) { continuation.yield(event) }
    }
}
