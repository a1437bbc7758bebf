import Endpoints

/// Twenty concurrent requests on an expired access token share one refresh: `JWTAuth` coalesces
/// them, and the single-use refresh token is spent once.
enum SharedRefreshSection {
    static let concurrentRequests = 20

    static func run(_ tour: Tour, client: DemoClient) async throws {
        let say = tour.transcript
        say.section("\(concurrentRequests) concurrent requests on an expired token share one refresh")
        let expiry = client.auth.tokens?.expiresAt ?? Date()
        let wait = max(0, expiry.timeIntervalSinceNow) + 0.2
        say.line(String(format: "waiting %.1f s for the access token to expire…", wait))
        try await Task.sleep(nanoseconds: UInt64(wait * 1e9))

        let refreshesBefore = tour.refreshes.value
        let serviceBefore = tour.service?.refreshes
        let start = DispatchTime.now()
        let profiles = try await withThrowingTaskGroup(of: Profile.self) { group in
            for _ in 0..<concurrentRequests {
                group.addTask { try await client.send(GetProfile()) }
            }
            return try await group.reduce(into: [Profile]()) { $0.append($1) }
        }
        let refreshes = tour.refreshes.value - refreshesBefore
        say.line("\(profiles.count) × GET me → \(profiles.count) profiles in \(milliseconds(since: start))")
        say.line("refreshes: \(refreshes)")
        if let service = tour.service, let serviceBefore {
            say.note("the service performed \(service.refreshes - serviceBefore) refresh(es)")
        }
    }
}
