import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Endpoints 0.4's URLSessionExtensionTests (velos/Endpoints, main:
// Tests/EndpointsTests/URLSessionExtensionTests.swift). 0.4's `InvalidEndpoint` does not compile
// now (its parameter is not ParameterRepresentable), so the request that cannot be built is one
// for an environment the server has no base URL for.
@Suite struct URLSessionExtensionTests04 {
    struct PartialServer: ServerDefinition {
        var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.velosmobile.com")!] }
    }

    struct InvalidEndpoint: Endpoint {
        typealias Server = PartialServer
        typealias Response = Void
        static let definition: Definition<InvalidEndpoint> = Definition(method: .get, path: "/")
    }

    // 0.4's endpointTask threw when the request could not be built; it is
    // `throws(T.TaskError)` again, throwing `.endpointError` at creation (MigratingFrom04.md,
    // "endpointTask throws again").
    @Test
    func taskCreationFailure() {
        #expect(throws: InvalidEndpoint.TaskError.self) {
            try URLSession.shared.endpointTask(
                with: InvalidEndpoint(),
                environment: .staging,
                completion: { _ in }
            )
        }
    }

    #if canImport(Combine)
        @Test
        func publisherCreationFailure() async {
            let values = URLSession.shared.endpointPublisher(
                with: InvalidEndpoint(),
                environment: .staging
            ).values

            await #expect(throws: EndpointTaskError<InvalidEndpoint.ErrorResponse>.self) {
                for try await _ in values {

                }
            }
        }
    #endif
}
