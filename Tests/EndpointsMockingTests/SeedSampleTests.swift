import Endpoints
import EndpointsMocking
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The two samples of the README's "Testing with EndpointsMocking", as written there.

@Suite struct MockingSeedSampleTests {
    @Test func testMyEndpoint() async throws {
        try await withMock(MyEndpoint.self, action: .return(.init(resourceId: "123", resourceName: "Test"))) {
            let response = try await URLSession.shared.response(with: MyEndpoint())
            #expect(response.resourceId == "123")
        }
    }

    @Test func severalEndpointsRegisteredTogether() async throws {
        let session = URLSession.shared
        try await withMock { mocks in
            mocks.register(RefreshEndpoint.self, action: .return(.init(access: "new", refresh: "next")))
            mocks.register(ProfileEndpoint.self, action: .return(.init(name: "Zac")))
        } test: {
            let profile = try await session.response(with: ProfileEndpoint())
            #expect(profile.name == "Zac")
            let tokens = try await session.response(with: RefreshEndpoint(token: "old"))
            #expect(tokens.access == "new" && tokens.refresh == "next")
        }
    }
}
