extension Method {
    /// The method's token; Endpoints 0.4's name for ``rawValue``.
    @available(*, deprecated, renamed: "rawValue")
    public var methodString: String { rawValue }

    /// `TRACE`, which a client rarely sends.
    @available(*, deprecated, message: "Write \"TRACE\" (Method is a string literal) instead.")
    public static let trace = Method(rawValue: "TRACE")

    /// `CONNECT`, which URLSession sends itself to open a tunnel through a proxy.
    @available(*, deprecated, message: "Write \"CONNECT\" (Method is a string literal) instead.")
    public static let connect = Method(rawValue: "CONNECT")
}

extension PathTemplate {
    /// An empty template, the path of the base URL itself.
    @available(*, deprecated, message: "Write the empty literal \"\" instead.")
    public init() { self.init(pieces: []) }
}
