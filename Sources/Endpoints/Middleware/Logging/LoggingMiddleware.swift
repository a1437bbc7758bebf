import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Logs every request, response and failure that passes through it, with credentials redacted.
///
/// ```swift
/// struct ApiServer: ServerDefinition {
///     var baseUrls: [Environments: URL] { [.production: URL(string: "https://api.example.com")!] }
///     static let middleware: [any Middleware] = [LoggingMiddleware(level: .headers)]
/// }
/// ```
///
/// writes, to standard error by default:
///
/// ```text
/// → #1 GET https://api.example.com/me?access_token=<redacted> [ProfileEndpoint]
///   Authorization: <redacted>
/// ← #1 200 GET https://api.example.com/me?access_token=<redacted> (35 ms)
///   Content-Type: application/json
/// ```
///
/// What is hidden is described by ``Redaction``: credentials in headers (including every header in
/// ``RequestContext/credentialHeaders``, such as a `HeaderKeyAuth` key), in the URL and in JSON, form
/// and multipart bodies. Opt in per name with ``Redaction/revealing(_:)``. Failures are logged by
/// error type and `URLError` code only, because error descriptions can contain URLs.
///
/// Place it after ``RetryMiddleware`` to log every attempt, or before it to log each call once.
public struct LoggingMiddleware: Middleware {
    /// How much is written.
    let level: LogLevel
    /// The most bytes of each body written at ``LogLevel/bodies``; longer bodies are cut and marked.
    let maximumBodyBytes: Int
    /// What is hidden.
    let redaction: Redaction
    /// Where messages go: each finished message, which may span several lines (headers, body).
    let sink: @Sendable (String) -> Void

    /// Numbers the exchanges so concurrent lines can be told apart.
    private let counter = Locked<UInt64>(0)

    /// Creates a logging middleware.
    ///
    /// The sink receives each finished message, already redacted; a message may span several lines
    /// (headers, body). Plug in whatever logger you use:
    ///
    /// ```swift
    /// let captured = LoggingMiddleware(level: .bodies, maximumBodyBytes: 1024) { print($0) }
    ///
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
    /// - Parameters:
    ///   - level: How much to write; ``LogLevel/basic`` when omitted.
    ///   - maximumBodyBytes: The most bytes of each body to write at ``LogLevel/bodies``; longer
    ///     bodies are cut and marked. 4096 when omitted.
    ///   - redaction: What to hide; ``Redaction/standard`` when omitted.
    ///   - sink: Receives each message; `nil` (the default) writes it and a newline to standard error.
    public init(
        level: LogLevel = .basic,
        maximumBodyBytes: Int = 4096,
        redaction: Redaction = .standard,
        sink: (@Sendable (String) -> Void)? = nil
    ) {
        self.level = level
        self.maximumBodyBytes = max(0, maximumBodyBytes)
        self.redaction = redaction
        self.sink = sink ?? LoggingMiddleware.standardError
    }

    /// Writes each message and a newline to standard error: the default sink.
    static let standardError: @Sendable (String) -> Void = { message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Logs `request`, passes it on, and logs the response or the failure.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        guard level != .off else { return try await next(request) }
        let number = counter.withLock { value in
            value &+= 1
            return value
        }
        let method = request.httpMethod ?? "GET"
        let url = request.url.map(redaction.redactedURL) ?? "(no URL)"
        let attempt =
            context.authenticationAttempt > 1 ? " (authentication attempt \(context.authenticationAttempt))" : ""
        var message = "→ #\(number) \(method) \(url) [\(context.endpointName)]\(attempt)"
        if level.includes(.headers) {
            let fields = (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }
            appendHeaders(fields, context: context, to: &message)
        }
        if level.includes(.bodies), let body = request.httpBody {
            appendBody(body, contentType: request.value(forHTTPHeaderField: "Content-Type"), to: &message)
        }
        sink(message)

        let start = ProcessInfo.processInfo.systemUptime
        do {
            let (data, response) = try await next(request)
            let elapsed = LoggingMiddleware.milliseconds(since: start)
            var message = "← #\(number) \(response.statusCode) \(method) \(url) (\(elapsed) ms)"
            // An HTTPCache inside this middleware says what it did.
            if let outcome = response.cacheOutcome { message += " cache: \(outcome.rawValue)" }
            if level.includes(.headers) {
                let fields = response.allHeaderFields.map { (name: "\($0.key)", value: "\($0.value)") }
                appendHeaders(fields, context: context, to: &message)
            }
            if level.includes(.bodies) {
                appendBody(data, contentType: response.value(forHTTPHeaderField: "Content-Type"), to: &message)
            }
            sink(message)
            return (data, response)
        } catch {
            let elapsed = LoggingMiddleware.milliseconds(since: start)
            sink("✗ #\(number) \(method) \(url) failed after \(elapsed) ms: \(LoggingMiddleware.summary(of: error))")
            throw error
        }
    }

    private func appendHeaders(
        _ fields: [(name: String, value: String)],
        context: RequestContext,
        to message: inout String
    ) {
        for field in fields.sorted(by: { $0.name.lowercased() < $1.name.lowercased() }) {
            let value = redaction.headerValue(
                field.value, name: field.name, credentialHeaders: context.credentialHeaders)
            message += "\n  \(field.name): \(value)"
        }
    }

    private func appendBody(_ body: Data, contentType: String?, to message: inout String) {
        guard !body.isEmpty else { return }
        let shown = redaction.redactedBody(body, contentType: contentType)
        guard let text = LoggingMiddleware.printableText(shown) else {
            message += "\n  (\(body.count)-byte binary body)"
            return
        }
        if shown.count > maximumBodyBytes {
            let cut = String(decoding: shown.prefix(maximumBodyBytes), as: UTF8.self)
            message += "\n  \(cut)… (\(shown.count) bytes, first \(maximumBodyBytes) shown)"
        } else {
            message += "\n  \(text)"
        }
    }

    /// The body as text when it is UTF-8 without control characters other than tab, CR and LF.
    static func printableText(_ data: Data) -> String? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        let printable = text.unicodeScalars.allSatisfy { scalar in
            scalar.value >= 0x20 && scalar.value != 0x7F || scalar == "\n" || scalar == "\r" || scalar == "\t"
        }
        return printable ? text : nil
    }

    /// The error without its description, which may hold URLs or values: its type, and its code for `URLError`.
    static func summary(of error: any Error) -> String {
        switch error {
        case let error as URLError: "URLError \(error.code.rawValue)"
        case is CancellationError: "cancelled"
        default: String(describing: type(of: error))
        }
    }

    static func milliseconds(since start: TimeInterval) -> Int {
        Int(((ProcessInfo.processInfo.systemUptime - start) * 1000).rounded())
    }
}
