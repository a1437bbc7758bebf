import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs `body` with its requests sent to `server` and returns its outcome, keeping the typed error.
func outcome<R: Sendable, E: Error>(
    loopback server: TestServer,
    _ body: () async throws(E) -> R
) async -> Result<R, E> {
    await withLoopback(to: server) {
        do throws(E) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}
