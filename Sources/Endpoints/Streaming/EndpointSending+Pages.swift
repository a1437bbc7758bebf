import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointSending {
    /// The pages of `endpoint`, fetched one at a time as they are read: the first page, then each
    /// page ``PaginatedEndpoint/nextPage(after:response:)`` names, until it names none.
    ///
    /// ```swift
    /// var all: [Issue] = []
    /// for try await page in client.pages(for: Issues()) {
    ///     all += page
    /// }
    /// ```
    ///
    /// Each page goes through the whole pipeline (authentication, refresh, middleware) and is
    /// decoded as the endpoint's `Response`; a failure ends the pages with the typed error. A page
    /// is only requested when the loop asks for it, so breaking out early sends nothing more. A
    /// mocked endpoint answers one page.
    public func pages<T: PaginatedEndpoint>(
        for endpoint: T,
        environment: T.Server.Environments = T.Server.defaultEnvironment,
        auth: T.Auth = T.auth,
        middleware: [any Middleware] = []
    ) -> PageSequence<T> {
        PageSequence(
            client: endpointClient, first: endpoint, environment: environment, auth: auth, middleware: middleware)
    }
}
