/// A set of HTTP status codes: the ones an endpoint accepts as a successful response.
///
/// By default an endpoint accepts 2xx and decodes anything else as its `ErrorResponse`. An endpoint
/// that sends `If-None-Match` can accept `304 Not Modified` as well:
///
/// ```swift
/// static let definition: Definition<ProfileEndpoint> = Definition(
///     method: .get,
///     path: "me",
///     acceptableStatusCodes: .successful + [304]
/// )
/// ```
///
/// An accepted status other than 2xx reaches ``Endpoint/decodeResponse(_:response:)`` like any
/// other: an endpoint whose body may be empty then declares `Response` as `Data` or `Void`, or
/// checks `response.statusCode` in its own `decodeResponse`.
public struct StatusCodes: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The ranges, each half-open, e.g. `200..<300`.
    let ranges: [Range<Int>]

    /// The codes in `ranges`.
    public init(_ ranges: [Range<Int>]) { self.ranges = ranges }

    /// The given codes, e.g. `[200, 304]`.
    public init(arrayLiteral codes: Int...) { self.ranges = codes.map { $0..<($0 + 1) } }

    /// `200..<300`, the default.
    public static let successful = StatusCodes([200..<300])

    /// Whether `code` is in the set.
    func contains(_ code: Int) -> Bool {
        // The default's single range is checked without a loop: this runs for every response.
        if let first = ranges.first, first.contains(code) { return true }
        return ranges.dropFirst().contains { $0.contains(code) }
    }

    /// The codes of both sets.
    public static func + (lhs: StatusCodes, rhs: StatusCodes) -> StatusCodes {
        StatusCodes(lhs.ranges + rhs.ranges)
    }

}
