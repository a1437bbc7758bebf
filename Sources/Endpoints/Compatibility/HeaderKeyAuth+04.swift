extension HeaderKeyAuth {
    /// Creates the method with the header given as a ``Header``, as Endpoints 0.4 did.
    ///
    /// ```swift
    /// let auth = HeaderKeyAuth(key: apiKey, header: "X-API-Key", prefix: nil)
    /// ```
    @available(
        *,
        deprecated,
        message:
            "Pass the header's name as a String: HeaderKeyAuth(key:header:prefix:) with header: \"X-API-Key\" (or header: yourHeader.name)."
    )
    public init(key: String, header: Header, prefix: String? = "Bearer") {
        self.init(key: key, header: header.name, prefix: prefix)
    }
}
