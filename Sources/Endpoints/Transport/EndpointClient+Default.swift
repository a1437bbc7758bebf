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

    /// The platform's default client, trusting servers as `tls` says and showing its client
    /// certificate: on Linux a ``CurlTransport`` of its own, on Apple platforms a `URLSession` whose
    /// delegate applies `tls` (see ``TLSTrust``).
    ///
    /// ```swift
    /// let trust = try TLSTrust(certificateAuthorities: [URL(fileURLWithPath: "/etc/myapp/ca.pem")])
    /// let client = EndpointClient(tls: trust)
    /// ```
    ///
    /// The client has connections of its own: make it once and keep it. On Linux without libcurl,
    /// which alone can apply `tls` there, every request fails with `URLError.secureConnectionFailed`
    /// before anything is sent: the trust is never silently dropped.
    ///
    /// - Parameters:
    ///   - tls: The certificate authorities, pins and client certificate.
    ///   - middleware: Middleware for every request this client sends.
    ///   - eventListener: Receives the events of every request this client sends.
    public init(tls: TLSTrust, middleware: [any Middleware] = [], eventListener: (any RequestEventListener)? = nil) {
        #if canImport(FoundationNetworking)
            let transport: any HTTPTransport
            do {
                transport = try CurlTransport(tls: tls)
            } catch {
                transport = RefusingTransport(
                    error: URLError(
                        .secureConnectionFailed,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "TLS trust settings need libcurl on Linux, which is unavailable (\(error.reason)); "
                                + "nothing was sent."
                        ]))
            }
        #else
            let transport = URLSessionTransport(session: TLSTrustDelegate.session(for: tls))
        #endif
        self.init(transport: transport, middleware: middleware, eventListener: eventListener)
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

/// A transport that sends nothing and fails every request with one error: what a client is left
/// with when what it was asked to do cannot be done safely.
struct RefusingTransport: HTTPTransport {
    let error: URLError

    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
        throw error
    }
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
