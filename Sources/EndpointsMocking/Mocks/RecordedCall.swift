/// One request made inside a mock scope: the endpoint value, and whether a mock answered it.
///
/// ```swift
/// #expect(mocks.calls.map(\.endpointName) == ["LoginEndpoint", "ProfileEndpoint"])
/// ```
public struct RecordedCall: Sendable, CustomStringConvertible {
    /// The endpoint value that was sent.
    public let endpoint: any Endpoint
    /// Whether a mock answered it (`false` when it passed through to the transport).
    public let wasMocked: Bool

    /// Creates a record.
    public init(endpoint: any Endpoint, wasMocked: Bool) {
        self.endpoint = endpoint
        self.wasMocked = wasMocked
    }

    /// The endpoint's type, e.g. `ProfileEndpoint.self`.
    public var endpointType: any Endpoint.Type { type(of: endpoint) }

    /// The endpoint type's name, e.g. `ProfileEndpoint`.
    public var endpointName: String { String(describing: endpointType) }

    /// The endpoint value as `T`, or `nil` when the call was for another endpoint.
    public func endpoint<T: Endpoint>(as type: T.Type) -> T? { endpoint as? T }

    /// `ProfileEndpoint (mocked)` or `ProfileEndpoint (passed through)`.
    public var description: String {
        "\(endpointName) (\(wasMocked ? "mocked" : "passed through"))"
    }
}
