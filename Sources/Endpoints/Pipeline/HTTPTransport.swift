import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What finally sends a request: one method, so a test double is just another transport.
///
/// ``URLSessionTransport`` is the real one. ``PipelineOverrides`` lets test support (such as
/// EndpointsMocking) put another in place for one task tree.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the body and response, whatever the status.
    func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse)

    /// Sends `request` and returns the response head as soon as it arrives, with the body still
    /// arriving, whatever the status. The default sends with ``send(_:context:)`` and hands the
    /// buffered body over as one chunk (see `HTTPTransport+Streaming.swift`).
    func stream(_ request: URLRequest, context: RequestContext) async throws -> (ResponseBody, HTTPURLResponse)
}
