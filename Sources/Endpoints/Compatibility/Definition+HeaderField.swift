import Foundation

// Endpoints 0.4 wrote a definition's headers as a dictionary of `HeaderField` values
// (`headers: [.accept: .fieldValue(value: "application/json")]`). Headers are now written the one
// way a `ContentBuilder` block and an ad-hoc request write them, `Header.accept.value(...)`, in a
// list where the last one with a name wins. The dictionary form still compiles, deprecated.

/// The value of a header in Endpoints 0.4's dictionary of a definition's headers.
@available(
    *, deprecated,
    message:
        "Write headers as a list: headers: [Header.accept.value(\"application/json\"), Header(\"X-Request-Id\").value(path: \\.requestId)]."
)
public struct HeaderField<T>: Sendable {
    let value: HeaderValue<T>

    /// A header whose value is read from the components at `path`.
    @available(*, deprecated, message: "Write Header(\"X-Name\").value(path: \\.property) in the headers list.")
    public static func field<U: ParameterRepresentable>(path: any KeyPath<T, U> & Sendable) -> HeaderField {
        HeaderField(value: .read(path))
    }

    /// A header with a fixed value.
    @available(*, deprecated, message: "Write Header(\"X-Name\").value(\"fixed\") in the headers list.")
    public static func fieldValue<U: ParameterRepresentable>(value: U) -> HeaderField {
        HeaderField(value: .fixed(value))
    }
}

extension Definition {
    /// Creates a definition with Endpoints 0.4's dictionary of headers.
    @available(
        *, deprecated,
        message:
            "Write headers as a list: headers: [Header.accept.value(\"application/json\"), Header(\"X-Request-Id\").value(path: \\.requestId)]."
    )
    public init(
        method: Method = .get,
        path: PathTemplate<T.PathComponents>,
        parameters: [Parameter<T.ParameterComponents>] = [],
        headers: [Header: HeaderField<T.HeaderComponents>],
        timeout: Double? = nil,
        acceptableStatusCodes: StatusCodes = .successful
    ) {
        self.init(
            method: method, path: path, parameters: parameters, headerFields: headers.mapValues(\.value),
            timeout: timeout, acceptableStatusCodes: acceptableStatusCodes)
    }
}
