import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends W3C Trace Context headers (`traceparent`, `tracestate`), so that a backend's traces join
/// the app's.
///
/// ```swift
/// let client = EndpointClient(
///     session: .shared,
///     middleware: [RetryMiddleware(), TraceContextMiddleware()]
/// )
/// // traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
/// ```
///
/// Each request gets one trace id: its parent's when `parent` is given, a new random one
/// otherwise, the same for all of the request's attempts. Each send gets a new span id, so
/// place it after (inside) ``RetryMiddleware`` for every retry to be a span of its own; the resend
/// after renewed credentials runs the chain again and gets one anyway. `tracestate` is passed
/// through as given. The trace id goes into the request's metrics (``RequestMetrics/traceID``) and
/// the events that follow (``RequestEvent/traceID``).
///
/// Invalid input is ignored rather than sent: a `parent` that is not a version-00 `traceparent`
/// (`00-` 32 lower-case hex digits `-` 16 hex digits `-` 2 hex digits, ids not all zero) starts a
/// new trace instead, and a `tracestate` that is not a list of `key=value` members of visible
/// ASCII, at most 512 characters (no CR or LF), is not sent. A request that already carries a
/// `traceparent` is sent as it is. Only the ids and flags are sent: nothing of the request.
public struct TraceContextMiddleware: Middleware {
    /// The trace flags' sampled bit.
    let sampled: Bool
    /// The parent's trace id, when a valid parent was given.
    let parentTraceID: String?
    /// The `tracestate` to pass on, when valid.
    let tracestate: String?

    /// Creates the middleware.
    /// - Parameters:
    ///   - sampled: Whether the trace is sampled (the `01` flag), so the backend records it.
    ///   - parent: The `traceparent` of the operation the requests belong to; `nil` (or invalid)
    ///     starts a new trace for each request.
    ///   - tracestate: Vendor state to pass on unchanged; `nil` (or invalid) sends none.
    public init(sampled: Bool = true, parent: String? = nil, tracestate: String? = nil) {
        self.sampled = sampled
        self.parentTraceID = parent.flatMap(TraceContext.traceID(ofParent:))
        self.tracestate = tracestate.flatMap { TraceContext.isValidState($0) ? $0 : nil }
    }

    /// Adds `traceparent` (and `tracestate`) to `request` and sends it.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        if let sent = request.value(forHTTPHeaderField: "traceparent") {
            // Its own trace, as the request carries it, in the metrics too when it is valid.
            if let traceID = TraceContext.traceID(ofParent: sent) { _ = context.recorder?.traceID(joining: traceID) }
            return try await next(request)
        }
        let traceID = context.recorder?.traceID(joining: parentTraceID) ?? parentTraceID ?? TraceContext.newTraceID()
        var request = request
        request.setValue(
            TraceContext.traceparent(traceID: traceID, spanID: TraceContext.newSpanID(), sampled: sampled),
            forHTTPHeaderField: "traceparent")
        if let tracestate { request.setValue(tracestate, forHTTPHeaderField: "tracestate") }
        return try await next(request)
    }
}

/// W3C Trace Context (https://www.w3.org/TR/trace-context/): ids, the header, and its validation.
enum TraceContext {
    /// 32 lower-case hex digits, not all zero.
    static func newTraceID() -> String {
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64
        let low = generator.next() as UInt64
        if high == 0 && low == 0 { high = 1 }
        return hex(high) + hex(low)
    }

    /// 16 lower-case hex digits, not all zero.
    static func newSpanID() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex(max(1, generator.next() as UInt64))
    }

    static func traceparent(traceID: String, spanID: String, sampled: Bool) -> String {
        "00-\(traceID)-\(spanID)-\(sampled ? "01" : "00")"
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The trace id of a valid version-00 `traceparent`, `nil` for anything else.
    static func traceID(ofParent parent: String) -> String? {
        let parts = parent.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "00",
            isHex(parts[1], count: 32), isHex(parts[2], count: 16), isHex(parts[3], count: 2),
            parts[1].contains(where: { $0 != "0" }), parts[2].contains(where: { $0 != "0" })
        else { return nil }
        return String(parts[1])
    }

    private static func isHex(_ text: Substring, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether `state` can be sent as `tracestate`: at most 512 characters of visible ASCII (and
    /// spaces), no CR or LF, comma-separated `key=value` members.
    static func isValidState(_ state: String) -> Bool {
        guard !state.isEmpty, state.utf8.count <= 512,
            state.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
        else { return false }
        for member in state.split(separator: ",") {
            let trimmed = member.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "="), equals != trimmed.startIndex,
                trimmed.index(after: equals) != trimmed.endIndex
            else { return false }
        }
        return true
    }
}
