import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A middleware that handles the response body as it arrives, for every kind of call: buffered
/// responses, server-sent events, JSON lines, bytes, uploads and downloads.
///
/// Its `next` returns the response head as soon as it arrives, with the body as a
/// ``ResponseBody`` still arriving; it returns a head and a body in turn: the same, one that
/// observes its chunks (``ResponseBody/observing(_:)``, which holds none of them), one read whole
/// (``ResponseBody/collect(upTo:)``) and changed, or an answer of its own.
///
/// ```swift
/// struct StreamMeter: StreamingMiddleware {
///     func intercept(
///         _ request: URLRequest,
///         context: RequestContext,
///         next: @escaping @Sendable (URLRequest) async throws -> (ResponseBody, HTTPURLResponse)
///     ) async throws -> (ResponseBody, HTTPURLResponse) {
///         let start = Date()
///         let (body, response) = try await next(request)
///         print(context.endpointName, response.statusCode, "head after", Date().timeIntervalSince(start), "s")
///         return (body.observing { chunk in
///             if chunk == nil { print(context.endpointName, "body after", Date().timeIntervalSince(start), "s") }
///         }, response)
///     }
/// }
/// ```
///
/// This is the contract the pipeline itself speaks; a plain ``Middleware`` is adapted to it and
/// sees bodies in memory (for a stream, the head with an empty body). For a buffered call the
/// body is already in memory, and reading it whole costs nothing. On Linux a download's accepted
/// body is received into a file by ``URLSessionTransport`` and reaches its destination without
/// passing through as chunks, so the body handed here ends without any.
///
/// The requirement of ``Middleware`` is met by a default that runs this one with the body in
/// memory, so a streaming middleware is usable wherever a middleware is.
public protocol StreamingMiddleware: Middleware {
    /// Handles `request`, usually by calling `next`, and returns the head with the body the
    /// caller reads.
    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @escaping @Sendable (URLRequest) async throws -> (ResponseBody, HTTPURLResponse)
    ) async throws -> (ResponseBody, HTTPURLResponse)
}

extension StreamingMiddleware {
    /// Runs the body-aware `intercept` with the body in memory: `next`'s data goes in as one
    /// chunk, and the body returned is read whole.
    ///
    /// `next` is handed on without escaping this call: a streaming middleware that keeps it for
    /// later (``HTTPCache``'s background revalidation) implements this method too.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        try await withoutActuallyEscaping(next) { next in
            let (body, response) = try await intercept(request, context: context) { request in
                let (data, response) = try await next(request)
                return (ResponseBody(data), response)
            }
            return (try await body.collect(), response)
        }
    }
}
