/// One server-sent event, as the WHATWG event-stream format dispatches it.
///
/// ```swift
/// for try await event in try await URLSession.shared.bytes(for: Ticker()).events {
///     print(event.type, event.data)   // "message", "{\"price\": 12}"
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The event type: the last `event:` field of the event, or `"message"` when it had none.
    public var type: String
    /// The `data:` lines of the event, joined with `\n` (no trailing newline).
    public var data: String
    /// The last event ID of the stream when this event was dispatched: the most recent `id:`
    /// field, which carries over to later events; `nil` when none was set (or it was set empty).
    public var id: String?
    /// The reconnection time in milliseconds, when a valid `retry:` field came since the previous event.
    public var retry: Int?

    /// Creates an event; mocks and tests build them this way.
    ///
    /// ```swift
    /// let event = ServerSentEvent(type: "update", data: #"{"n": 1}"#, id: "42")
    /// ```
    public init(type: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }

    /// The event as it would appear on the wire, e.g. `event: update` / `data: …` lines.
    public var description: String {
        var lines: [String] = []
        if type != "message" { lines.append("event: \(type)") }
        if let id { lines.append("id: \(id)") }
        if let retry { lines.append("retry: \(retry)") }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append("data: \(line)")
        }
        return lines.joined(separator: "\n")
    }
}
