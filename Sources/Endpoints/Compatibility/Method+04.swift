extension Method {
    /// The method's token; Endpoints 0.4's name for ``rawValue``.
    @available(*, deprecated, renamed: "rawValue")
    public var methodString: String { rawValue }
}
