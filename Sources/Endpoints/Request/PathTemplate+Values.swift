extension PathTemplate.StringInterpolation where T == Void {
    /// Creates an empty interpolation for a path of `Void` components (an ad-hoc request's).
    ///
    /// The generic initializer, compiled for `Void`: an ad-hoc request's path is made each time
    /// the request is, and the generic one looks up its types at run time on every call.
    init(literalCapacity: Int, interpolationCount: Int) {
        reserve(interpolationCount: interpolationCount)
    }

    /// Appends fixed path text: the generic method, compiled for `Void`.
    mutating func appendLiteral(_ literal: String) {
        append(literal: literal)
    }

    /// Appends `text` as one path segment of an ``AdHocRequest``'s path (`"users/\(id)/posts"`).
    ///
    /// The value is percent-encoded as an endpoint's path values are (`a/b` → `a%2Fb`), so it can
    /// never change the shape of the path, and is a segment of its own. A `nil` value is left out;
    /// an empty, `.` or `..` value fails the request with ``EndpointError/invalidPathValue(_:value:)``,
    /// naming it by its place, e.g. `{1}` for the first value.
    mutating func appendSegment(_ text: String?) {
        var place = 1
        for piece in pieces {
            switch piece {
            case .literal: continue
            case .value, .segment: place += 1
            }
        }
        pieces.append(.segment(place: place, text: text))
    }
}
