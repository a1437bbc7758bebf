import Endpoints

/// Typed endpoints: sign in, read the profile, walk a paginated list. Every value is a typed
/// response decoded by the pipeline; the tokens never appear in the transcript.
enum TypedEndpointsSection {
    static func run(_ tour: Tour) async throws -> DemoClient {
        let say = tour.transcript
        say.section("Typed endpoints: login, a profile, a paginated list")
        let client = try await DemoClient.signIn(
            at: tour.production, middleware: tour.middleware, refreshes: tour.refreshes)
        let lifetime = client.auth.tokens?.expiresAt.map { $0.timeIntervalSinceNow } ?? 0
        say.line(String(format: "POST login → Tokens; the access token expires in %.0f s", lifetime.rounded()))

        let profile = try await client.send(GetProfile())
        say.line("GET me → \(profile)")

        var page: Int? = 1
        var total = 0
        while let current = page {
            let items = try await client.send(ListItems(parameterComponents: .init(page: current, perPage: 10)))
            total += items.items.count
            let ids = items.items.map(\.id)
            let range = ids.first.map { "\($0)…\(ids.last ?? $0)" } ?? "none"
            say.line(
                "GET items?page=\(current)&perPage=10 → \(items.items.count) items (\(range)), next page \(items.nextPage.map(String.init) ?? "none")"
            )
            page = items.nextPage
        }
        say.note("\(total) items in all, each an ItemPage.Item decoded from JSON")
        return client
    }
}
