import Endpoints
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An `HTTPCache` in a client: the second request is revalidated, the service answers 304, and
/// the caller gets the stored body as a 200.
enum CachingSection {
    static func run(_ tour: Tour) async throws {
        let say = tour.transcript
        say.section("An HTTP cache revalidates with a 304")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil  // the cache is HTTPCache's alone
        let client = EndpointClient(
            session: URLSession(configuration: configuration), middleware: tour.middleware + [HTTPCache()])
        let catalog = Request<[String]>.get("catalog", on: RequestBase(url: tour.production))
        for attempt in 1...2 {
            let result = try await client.typedResponse(for: catalog)
            let outcome = result.httpResponse.cacheOutcome.map { "\($0)" } ?? "none"
            say.line(
                "GET catalog #\(attempt) → \(result.value), status \(result.httpResponse.statusCode), cache: \(outcome)"
            )
        }
        say.line("(Cache-Control: no-cache: the second GET sent If-None-Match, the service answered 304)")
    }
}
