import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A limit on the whole exchange: the request fails with `URLError.timedOut` when the answer is
/// not complete within `seconds`, however steadily the bytes arrive.
///
/// `timeoutInterval` (and a definition's `timeout`) is an idle timeout: it resets with every byte, so
/// a response that trickles forever never hits it. Put a deadline where the caller cannot wait
/// longer than a fixed time:
///
/// ```swift
/// let profile = try await URLSession.shared.response(
///     with: ProfileEndpoint(),
///     middleware: [DeadlineMiddleware(seconds: 5)]
/// )
/// ```
///
/// Placed before ``RetryMiddleware`` in a list, the deadline covers every attempt and the waits
/// between them; placed after it, each attempt gets its own.
public struct DeadlineMiddleware: Middleware {
    /// The most seconds the exchange may take.
    let seconds: TimeInterval

    /// A deadline of `seconds` for the exchange.
    public init(seconds: TimeInterval) { self.seconds = seconds }

    /// Sends `request` through `next`, and fails with `URLError.timedOut` if that takes longer than
    /// `seconds`; the exchange in flight is cancelled.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        let limit = seconds
        let url = request.url
        return try await withoutActuallyEscaping(next) { next in
            try await withThrowingTaskGroup(of: (Data, HTTPURLResponse).self) { group in
                group.addTask { try await next(request) }
                group.addTask {
                    try await Task.sleep(nanoseconds: UInt64(max(0, limit) * 1_000_000_000))
                    throw URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url as Any])
                }
                defer { group.cancelAll() }
                // The first to finish wins: the answer, or the deadline's timeout.
                guard let first = try await group.next() else { throw CancellationError() }
                return first
            }
        }
    }
}
