import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension EndpointClient {
    /// The platform's default client: on Linux it sends through libcurl itself (``CurlTransport``),
    /// on Apple platforms through `URLSession.shared`.
    ///
    /// ```swift
    /// let client = EndpointClient()
    /// let user = try await client.response(with: UserEndpoint(pathComponents: .init(userId: 42)))
    /// ```
    ///
    /// This is the way to send from a server on Linux: libcurl directly costs a fraction of what
    /// Linux's URLSession costs per request, speaks HTTP/2, reports connection timings, and has
    /// none of corelibs' defects (see <doc:Transports>). Every client made this way shares one
    /// transport, and so its connections and its thread, as `URLSession.shared` is shared.
    ///
    /// If libcurl cannot be loaded on Linux (it ships with the Swift toolchain, so this is rare), the
    /// client sends with `URLSession.shared` instead and says so once on standard error.
    ///
    /// - Parameters:
    ///   - middleware: Middleware for every request this client sends.
    ///   - eventListener: Receives the events of every request this client sends.
    public init(middleware: [any Middleware] = [], eventListener: (any RequestEventListener)? = nil) {
        self.init(transport: Self.defaultTransport, middleware: middleware, eventListener: eventListener)
    }

    /// The platform's default transport (see ``init(middleware:eventListener:)``).
    static var defaultTransport: any HTTPTransport {
        #if canImport(FoundationNetworking)
            defaultTransport(curl: CurlTransport.shared, notice: DefaultTransportNotice.once)
        #else
            URLSessionTransport(session: .shared)
        #endif
    }

    #if canImport(FoundationNetworking)
        /// `curl`, or, when libcurl is unavailable, `URLSession.shared`, telling `notice` why.
        static func defaultTransport(
            curl: Result<CurlTransport, CurlUnavailable>, notice: (CurlUnavailable) -> Void
        ) -> any HTTPTransport {
            switch curl {
            case .success(let transport):
                return transport
            case .failure(let reason):
                notice(reason)
                return URLSessionTransport(session: .shared)
            }
        }
    #endif
}

#if canImport(FoundationNetworking)
    /// Says once per process, on standard error, that the default client fell back to URLSession.
    enum DefaultTransportNotice {
        private static let said = Locked(false)

        static func once(_ reason: CurlUnavailable) {
            let first = said.withLock { said in
                defer { said = true }
                return !said
            }
            guard first else { return }
            let line = "Endpoints: \(reason); EndpointClient() sends with URLSession.shared instead.\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }
#endif
