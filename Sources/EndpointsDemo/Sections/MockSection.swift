import Endpoints
import EndpointsMocking
import EndpointsTestServer

/// A mocked call: `withMock` answers an endpoint type inside its scope, before anything is built
/// or sent, and only for this task tree.
enum MockSection {
    static func run(_ tour: Tour, client: DemoClient) async throws {
        let say = tour.transcript
        say.section("A mocked call")
        let requestsBefore = tour.service?.http.requestCount
        let mocked = Profile(id: 7, name: "Grace Hopper (mock)", email: "grace@example.com")
        let profile = try await withMock(GetProfile.self, action: .return(mocked)) {
            try await client.send(GetProfile())
        }
        say.line("GET me inside withMock(GetProfile.self, action: .return(…)) → \(profile)")
        if let service = tour.service, let requestsBefore {
            say.note("requests the service received meanwhile: \(service.http.requestCount - requestsBefore)")
        }
        let real = try await client.send(GetProfile())
        say.line("GET me outside the scope → \(real)")
    }
}
