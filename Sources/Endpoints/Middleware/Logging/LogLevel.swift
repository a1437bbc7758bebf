import Foundation

/// How much ``LoggingMiddleware`` writes about each exchange; each level includes the ones before it.
///
/// ```swift
/// LoggingMiddleware(level: .headers)
/// ```
public enum LogLevel: Int, Sendable, Hashable, CaseIterable {
    /// Nothing.
    case off
    /// One line per request and one per response or failure: method, URL, status, duration.
    case basic
    /// Also the request and response headers.
    case headers
    /// Also the bodies, up to the middleware's `maximumBodyBytes` each.
    case bodies

    /// Whether this level writes what `level` writes.
    func includes(_ level: LogLevel) -> Bool { rawValue >= level.rawValue }
}
