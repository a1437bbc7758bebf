import Endpoints

/// Per-request environment: the same endpoint type sent to two deployments at once, by two
/// clients with their own credentials. There is no global environment to switch.
enum EnvironmentSection {
    static func run(_ tour: Tour, client production: DemoClient) async throws {
        let say = tour.transcript
        say.section("Per-request environment and credentials")
        let staging = try await DemoClient.signIn(
            at: tour.staging, middleware: tour.middleware, refreshes: tour.refreshes)
        async let fromProduction = production.send(GetProfile())
        async let fromStaging = staging.send(GetProfile())
        let (first, second) = try await (fromProduction, fromStaging)
        say.line("GET me, environment \(production.environment) → \(first)")
        say.line("GET me, environment \(staging.environment) → \(second)")
        say.note("Both at once: each request names its environment and its own JWTAuth.")
    }
}
