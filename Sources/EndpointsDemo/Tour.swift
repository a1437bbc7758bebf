import Endpoints

/// The tour: `swift run endpoints-demo` prints it; `DemoTests` runs it and checks the transcript.
///
/// Each section is in its own file under `Sections/` and runs against the embedded loopback
/// service (or `--base-url`), in the order listed in ``run(options:output:)``.
enum Demo {
    static func run(options: DemoOptions = DemoOptions(), output: @escaping @Sendable (String) -> Void) async throws {
        let transcript = Transcript(output: output)
        let production = try DemoService(name: "production", tokenLifetime: options.tokenLifetime)
        let staging = try DemoService(name: "staging", tokenLifetime: options.tokenLifetime)
        defer {
            production.stop()
            staging.stop()
        }
        let tour = Tour(
            transcript: transcript,
            production: options.baseURL ?? production.baseURL,
            staging: staging.baseURL,
            service: options.baseURL == nil ? production : nil,
            middleware: options.logLevel == .off
                ? [] : [LoggingMiddleware(level: options.logLevel, sink: { transcript.note($0) })]
        )
        transcript.plain("Endpoints tour — production: \(tour.production), staging: \(tour.staging)")
        if options.logLevel != .off { transcript.plain("Logging every request at level \(options.logLevel).") }

        let client = try await TypedEndpointsSection.run(tour)
        try await TypedErrorSection.run(tour, client: client)
        try await EnvironmentSection.run(tour, client: client)
        try await SharedRefreshSection.run(tour, client: client)
        try await RetrySection.run(tour)
        try await LoggingSection.run(tour)
        try await MockSection.run(tour, client: client)
        try await StreamingSection.run(tour)
        try await DownloadSection.run(tour)
        try await AdHocSection.run(tour, client: client)
        try await OAuthSection.run(tour)
        try await CachingSection.run(tour)
        try await TimelineSection.run(tour)
        try await WebSocketSection.run(tour, client: client)

        transcript.plain("\nDone: every section above went through the same pipeline, over real loopback HTTP.")
    }
}

/// What every section needs: where to send, how to report, and the embedded service to ask for
/// its counters (`nil` when the tour runs against `--base-url`).
struct Tour: Sendable {
    let transcript: Transcript
    let production: URL
    let staging: URL
    let service: DemoService?
    /// The `--log-level` logging, added to every request.
    let middleware: [any Middleware]
    /// Counts the refreshes every client's `JWTAuth` performs.
    let refreshes = RefreshCounter()
}

/// A thread-safe counter.
final class RefreshCounter: @unchecked Sendable {
    // @unchecked Sendable: `count` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
}

/// Milliseconds since `start`, for the lines that report a duration of their own.
func milliseconds(since start: DispatchTime) -> String {
    String(format: "%.0f ms", Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
}
