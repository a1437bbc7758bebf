/// A ``FakeHTTPTransport`` received a request nothing was registered for.
///
/// Through the pipeline, callers see it as `EndpointTaskError.middlewareError(UnmatchedRequestError)`;
/// the fake never lets a request reach the network.
public struct UnmatchedRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request's method, e.g. `GET`.
    public let method: String
    /// The request's path, e.g. `/profile`.
    public let path: String

    /// Creates the error.
    public init(method: String, path: String) {
        self.method = method
        self.path = path
    }

    /// A sentence naming the request and the fix.
    public var description: String {
        "The fake transport has no response for \(method) \(path); register one with "
            + "fake.register(\"\(method)\", \"\(path)\", ...)."
    }
}
