#if canImport(Combine)
    import Combine
    import Endpoints
    import EndpointsMocking
    import Foundation
    import Testing

    /// Combine publishers honour mocks: the scope is captured when the publisher is created.
    @Suite struct MockCombineTests {
        @Test func publishersHonourMocks() async throws {
            let publisher = await withMock(
                MyEndpoint.self,
                action: .return(.init(resourceId: "p", resourceName: "Combine"))
            ) {
                URLSession.shared.endpointPublisher(with: MyEndpoint())
            }
            var values: [MyEndpoint.Response] = []
            for try await value in publisher.values { values.append(value) }
            #expect(values.map(\.resourceId) == ["p"])
        }
    }
#endif
