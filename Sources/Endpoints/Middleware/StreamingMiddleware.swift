import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A middleware that also sees the body of a streamed response as it arrives: server-sent events,
/// JSON lines, bytes and downloads.
///
/// ``Middleware/intercept(_:context:next:)`` runs as for any request and sees the response head
/// as soon as it arrives; for a stream whose status the endpoint accepts, the body it is handed
/// there is empty, because the stream has not been read yet. Once the chain is done, the pipeline
/// hands the body itself to ``observe(_:of:context:)``, which returns the body the caller reads:
/// the same, or one that observes its chunks with ``ResponseBody/observing(_:)``, which holds none
/// of them.
///
/// ```swift
/// struct StreamMeter: StreamingMiddleware {
///     func intercept(
///         _ request: URLRequest,
///         context: RequestContext,
///         next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
///     ) async throws -> (Data, HTTPURLResponse) {
///         try await next(request)
///     }
///
///     func observe(_ body: ResponseBody, of response: HTTPURLResponse, context: RequestContext) -> ResponseBody {
///         let start = Date()
///         return body.observing { chunk in
///             if chunk == nil { print(context.endpointName, "streamed for", Date().timeIntervalSince(start), "s") }
///         }
///     }
/// }
/// ```
///
/// The innermost middleware observes first, so an outer one sees what inner ones return. A retry
/// observes the body of the send that is kept. On Linux a download's accepted body is received
/// into a file by ``URLSessionTransport`` and reaches its destination without passing through as
/// chunks, so there is nothing to observe.
public protocol StreamingMiddleware: Middleware {
    /// Returns the body the caller reads for an accepted streamed `response`: `body`, or one
    /// made from it (``ResponseBody/observing(_:)``).
    func observe(_ body: ResponseBody, of response: HTTPURLResponse, context: RequestContext) -> ResponseBody
}
