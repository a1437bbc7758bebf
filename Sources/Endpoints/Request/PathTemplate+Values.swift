extension PathTemplate.StringInterpolation where T == Void {
    /// Appends `value` as one path segment of an ``AdHocRequest``'s path: `"users/\(id)/posts"`.
    ///
    /// The value is percent-encoded as an endpoint's path values are (`a/b` → `a%2Fb`), so it can
    /// never change the shape of the path. A `nil`, empty, `.` or `..` value fails the request with
    /// ``EndpointError/missingPathValue(_:)`` or ``EndpointError/invalidPathValue(_:value:)``,
    /// naming it by its place, e.g. `{1}` for the first value.
    public mutating func appendInterpolation<U: ParameterRepresentable>(_ value: U) {
        let text = value.parameterValue
        let place = pieces.reduce(1) { count, piece in
            if case .value = piece { count + 1 } else { count }
        }
        pieces.append(.value(name: "\(place)", includesSlash: true) { _ in text })
    }
}
