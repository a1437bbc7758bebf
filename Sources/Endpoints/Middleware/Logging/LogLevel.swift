import Foundation

/// How much ``LoggingMiddleware`` writes about each exchange; each level includes the ones before it.
///
/// ```swift
/// LoggingMiddleware(level: .headers)
/// ```
public enum LogLevel: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Nothing.
    case off
    /// One line per request and one per response or failure: method, URL, status, duration.
    case basic
    /// Also the request and response headers.
    case headers
    /// Also the bodies, up to ``LoggingMiddleware/maximumBodyBytes`` each.
    case bodies

    /// Orders levels from ``off`` to ``bodies``.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where ``LoggingMiddleware`` writes: a closure that receives each finished message.
///
/// A message may span several lines (headers, body). Plug in whatever logger you use:
///
/// ```swift
/// import os
/// let logger = Logger(subsystem: "com.example.app", category: "network")
/// let logging = LoggingMiddleware(level: .headers) { message in
///     logger.debug("\(message, privacy: .public)")   // already redacted
/// }
///
/// // swift-log
/// let log = Logging.Logger(label: "network")
/// let logging2 = LoggingMiddleware(level: .basic) { log.info("\($0)") }
/// ```
public typealias LogSink = @Sendable (String) -> Void

/// Ready-made sinks for ``LoggingMiddleware``.
public enum LogSinks {
    /// Writes each message and a newline to standard error: the default sink.
    public static let standardError: LogSink = { message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
