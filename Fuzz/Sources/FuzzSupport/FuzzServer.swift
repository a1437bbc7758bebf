import Endpoints
import Foundation

/// The server every fuzz endpoint is built for. Its base URL has a path and a query of its own,
/// so the targets also check that values never disturb them.
public struct FuzzServer: ServerDefinition {
    public init() {}

    public var baseUrls: [Environments: URL] {
        [.production: URL(string: "https://api.example.com/v1?api-version=2")!]
    }
}
