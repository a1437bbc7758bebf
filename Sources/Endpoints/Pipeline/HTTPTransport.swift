import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What finally sends a request: one method, so a test double is just another transport.
///
/// ``URLSessionTransport`` is the real one; choose another per client with ``EndpointClient``:
///
/// ```swift
/// struct RecordingTransport: HTTPTransport {
///     let inner = URLSessionTransport(session: .shared)
///     func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
///         print(request.httpMethod ?? "GET", request.url?.path ?? "")
///         return try await inner.send(request, context: context)
///     }
/// }
/// let client = EndpointClient(transport: RecordingTransport())
/// ```
///
/// A transport receives finished requests: authenticated, through the middleware, with every
/// header validated. It knows nothing of authentication; the ``RequestContext`` says what it may
/// need (the credential headers, whether a token refresh sends the request). A transport that
/// limits its connections queues requests itself, as ``URLSessionTransport`` does per host. EndpointsMocking's fake transport is one more transport, installed for a task tree.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the body and response, whatever the status.
    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse)

    /// Sends `request` and returns the response head as soon as it arrives, with the body still
    /// arriving, whatever the status. The default sends with ``send(_:context:)`` and hands the
    /// buffered body over as one chunk (see `HTTPTransport+Streaming.swift`); a transport that
    /// streams makes its body with ``ResponseBody/init(_:bufferLimit:)`` from its chunks.
    func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse)
}
