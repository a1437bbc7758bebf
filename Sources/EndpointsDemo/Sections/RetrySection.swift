import Endpoints

/// A retry after a 503 with `Retry-After`: `RetryMiddleware` waits as long as the server asks,
/// then sends again. The logging inside it shows each attempt.
enum RetrySection {
    static func run(_ tour: Tour) async throws {
        let say = tour.transcript
        say.section("A retry after a 503 with Retry-After")
        // Retry outside, logging inside: every attempt is logged.
        let middleware: [any Middleware] = [
            RetryMiddleware(),
            LoggingMiddleware(level: .basic, sink: { say.note($0) }),
        ]
        let start = DispatchTime.now()
        let status = try await URLSession.shared.response(
            with: ServiceStatus(), environment: tour.production, middleware: middleware)
        say.line("GET status → \"\(status.status)\" after \(milliseconds(since: start)), one retry after the 503")
    }
}
