import Endpoints
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transports the transport-facing tests run through, each test once per transport: URLSession's
/// (on every platform) and, on Linux, libcurl's (`EndpointClient()`'s default there).
///
/// ```swift
/// @Test(arguments: TestTransport.all)
/// func aRedirectKeepsTheBody(via transport: TestTransport) async throws {
///     let echo = try await send(PostEndpoint("moved"), to: server, via: transport).get()
/// }
/// ```
enum TestTransport: String, Sendable, CustomTestStringConvertible {
    case urlSession
    #if canImport(FoundationNetworking)
        case curl
    #endif

    /// Every transport of this platform, or those `ENDPOINTS_TEST_TRANSPORTS` names (separated by
    /// commas: `urlSession`, `curl`), to run or time the suite through one alone. With no name this
    /// platform knows, every transport.
    static var all: [TestTransport] {
        #if canImport(FoundationNetworking)
            let platform: [TestTransport] = [.urlSession, .curl]
        #else
            let platform: [TestTransport] = [.urlSession]
        #endif
        let names = ProcessInfo.processInfo.environment["ENDPOINTS_TEST_TRANSPORTS"]?.split(separator: ",") ?? []
        let chosen = platform.filter { names.contains(Substring($0.rawValue)) }
        return chosen.isEmpty ? platform : chosen
    }

    var testDescription: String { rawValue }

    /// Whether a response head cut off by a closed connection crashes the process (corelibs
    /// #5285, Linux's URLSession until Swift 6.4).
    var crashesOnCutOffHeads: Bool {
        #if canImport(FoundationNetworking)
            self == .urlSession
        #else
            false
        #endif
    }

    /// Whether a chunked response with trailer fields crashes the process: corelibs' header parser
    /// takes the trailer lines for the start of another head, and the transfer then ends with no
    /// response, the check of #5285 (Linux's URLSession until Swift 6.4, which reports a lost
    /// connection instead).
    var crashesOnTrailers: Bool { crashesOnCutOffHeads }

    /// Whether this is Linux's URLSession, where `result` is checked to be a failure with `code`: a
    /// corelibs defect the test pins, to be turned around once corelibs is fixed. The caller returns
    /// when it is; every other transport goes on to check the answer.
    ///
    /// ```swift
    /// if transport.pinsLinuxURLSessionFailure(result, code: .badURL) { return }
    /// #expect(try result.get() == expected)
    /// ```
    func pinsLinuxURLSessionFailure<Value, ErrorResponse>(
        _ result: Result<Value, EndpointTaskError<ErrorResponse>>, code: URLError.Code,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        #if canImport(FoundationNetworking)
            guard self == .urlSession else { return false }
            switch result {
            case .failure(let error):
                #expect(error.urlErrorCode == code, "got \(error)", sourceLocation: sourceLocation)
            case .success:
                Issue.record("Linux's URLSession answered; corelibs may be fixed", sourceLocation: sourceLocation)
            }
            return true
        #else
            return false
        #endif
    }

    /// Whether a 301, 302, 303, 307 or 308 that is not followed (its `Location` missing, empty or
    /// not a URL) arrives without its body: Linux's URLSession (6.3) drops it.
    var dropsUnfollowedRedirectBodies: Bool { crashesOnCutOffHeads }

    /// Whether a field value that is not UTF-8 (RFC 9110's obs-text) arrives: Linux's URLSession
    /// (6.3) fails the whole response instead.
    var deliversObsText: Bool { !crashesOnCutOffHeads }

    /// The transport: over `session` for URLSession's; for libcurl's, one shared by the tests (as
    /// `URLSession.shared` is), or one of its own with `maximumRequestsPerHost`.
    func transport(session: URLSession = .shared, maximumRequestsPerHost: Int? = nil) -> any HTTPTransport {
        switch self {
        case .urlSession:
            if let maximumRequestsPerHost {
                return URLSessionTransport(session: session, maximumRequestsPerHost: maximumRequestsPerHost)
            }
            return URLSessionTransport(session: session)
        #if canImport(FoundationNetworking)
            case .curl:
                if let maximumRequestsPerHost {
                    return TestTransport.curl(maximumRequestsPerHost: maximumRequestsPerHost)
                }
                return TestTransport.sharedCurl
        #endif
        }
    }

    /// A client sending through ``transport(session:maximumRequestsPerHost:)`` with `middleware`.
    func client(
        session: URLSession = .shared, middleware: [any Middleware] = [],
        eventListener: (any RequestEventListener)? = nil
    ) -> EndpointClient {
        EndpointClient(transport: transport(session: session), middleware: middleware, eventListener: eventListener)
    }

    #if canImport(FoundationNetworking)
        /// One libcurl transport for the tests that need no limit of their own.
        static let sharedCurl: any HTTPTransport = curl(
            maximumRequestsPerHost: CurlTransport.defaultMaximumRequestsPerHost)

        static func curl(maximumRequestsPerHost: Int) -> any HTTPTransport {
            do {
                return try CurlTransport(maximumRequestsPerHost: maximumRequestsPerHost)
            } catch {
                Issue.record("libcurl could not be loaded: \(error)")
                return URLSessionTransport(session: .shared)
            }
        }
    #endif
}
