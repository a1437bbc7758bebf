/// The placeholder for "no value": an endpoint with no body, or no typed error response.
///
/// Decoding it never fails, whatever the server sent; an endpoint whose `Body` is `EmptyCodable`
/// sends no body at all.
public struct EmptyCodable: Codable, Hashable, Sendable {
    /// Creates the empty value.
    public init() {}

    /// Accepts any input.
    public init(from decoder: any Decoder) throws {}
}
