/// The placeholder for "no value": an endpoint with no body, or no typed error response.
///
/// Decoding it never fails, whatever the server sent, and encoding it produces no body at all.
public struct EmptyCodable: Codable, Hashable, Sendable {
    /// Creates the empty value.
    public init() {}

    /// Accepts any input.
    public init(from decoder: any Decoder) throws {}

    /// Writes nothing.
    public func encode(to encoder: any Encoder) throws {}
}
