import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An endpoint whose response is one page of many, and that says how to get the next one.
///
/// By default the next page is the `Link: <…>; rel="next"` target of the response (RFC 8288),
/// as GitHub and many REST APIs send it:
///
/// ```swift
/// struct Issues: PaginatedEndpoint {
///     typealias Server = GitHub
///     typealias Response = [Issue]
///     static let definition: Definition<Issues> = Definition(path: "repos/apple/swift/issues")
/// }
///
/// for try await page in URLSession.shared.pages(for: Issues()) {
///     print(page.count)
/// }
/// ```
///
/// For a cursor in the body, return the endpoint for the next page:
///
/// ```swift
/// struct Feed: PaginatedEndpoint {
///     typealias Server = API
///     struct Response: Decodable, Sendable { let items: [Item]; let nextCursor: String? }
///     struct ParameterComponents: Sendable { var cursor: String? }
///     static let definition: Definition<Feed> = Definition(
///         path: "feed", parameters: [.query("cursor", path: \.cursor)])
///     var parameterComponents = ParameterComponents(cursor: nil)
///
///     func nextPage(after page: Response, response: HTTPURLResponse) -> NextPage<Feed> {
///         guard let cursor = page.nextCursor else { return .none }
///         return .endpoint(Feed(parameterComponents: .init(cursor: cursor)))
///     }
/// }
/// ```
public protocol PaginatedEndpoint: Endpoint {
    /// Where the page after `page` is: another endpoint value, a URL, or nowhere.
    func nextPage(after page: Response, response: HTTPURLResponse) -> NextPage<Self>
}

extension PaginatedEndpoint {
    /// The `Link` header's `rel="next"` target, resolved against the response's URL.
    public func nextPage(after page: Response, response: HTTPURLResponse) -> NextPage<Self> {
        guard let header = response.value(forHTTPHeaderField: "Link"),
            let url = WebLink.target(of: "next", in: header, relativeTo: response.url)
        else { return .none }
        return .url(url)
    }
}

/// Where the next page of a ``PaginatedEndpoint`` is.
public enum NextPage<E: Endpoint>: Sendable {
    /// There is none: that was the last page.
    case none
    /// Send this endpoint value (for a cursor or page number in the query).
    case endpoint(E)
    /// Send the current endpoint's request with this URL instead (for a `Link` header). Only a
    /// URL of the same origin (scheme, host, port) is followed, since the request carries the
    /// endpoint's credentials; another origin ends the pages with
    /// ``EndpointTaskError/pageLinkError(target:)``, whose stage is ``RequestStage/pageLink``.
    case url(URL)
}

/// The pages of a ``PaginatedEndpoint``, as an `AsyncSequence` of its `Response`; see
/// ``EndpointSending/pages(for:environment:auth:middleware:)``.
public struct PageSequence<T: PaginatedEndpoint>: AsyncSequence, Sendable {
    let client: EndpointClient
    let first: T
    let environment: T.Server.Environments
    let auth: T.Auth
    let middleware: [any Middleware]

    /// Fetches the pages in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let pages: PageSequence
        private var next: NextPage<T>
        private var current: T
        private var origin: RedirectPolicy.Origin?

        init(_ pages: PageSequence) {
            self.pages = pages
            next = .endpoint(pages.first)
            current = pages.first
        }

        /// The next page, or `nil` after the last.
        public mutating func next() async throws(T.TaskError) -> T.Response? {
            let call: PipelineCall<T.Response, T.ErrorResponse>
            switch next {
            case .none:
                return nil
            case .endpoint(let endpoint):
                current = endpoint
                origin = (try? endpoint.urlRequest(environment: pages.environment).url).flatMap(
                    RedirectPolicy.Origin.init)
                call = pages.client.call(
                    endpoint, environment: pages.environment, auth: pages.auth, middleware: pages.middleware)
            case .url(let url):
                guard RedirectPolicy.Origin(url) == origin else {
                    next = .none
                    throw .pageLinkError(target: String(url.absoluteString.prefix { $0 != "?" }))
                }
                call = pages.client.call(
                    current, environment: pages.environment, auth: pages.auth, middleware: pages.middleware
                ).adjusted { request in
                    var request = request
                    request.url = url
                    return request
                }
            }
            next = .none
            let (page, response, _) = try await call.run(on: pages.client.transport)
            next = current.nextPage(after: page, response: response)
            return page
        }
    }

    /// An iterator that fetches the first page when first asked.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(self) }
}
