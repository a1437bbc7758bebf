import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Spellings of earlier builds of this release that a smaller surface replaced: a reconnection
// policy's named default, the retry middleware's give-up report read field by field, and the
// limit a too-large body's error repeated. Kept so that code using them still compiles, with a
// warning.

extension EventStreamReconnection {
    /// Three seconds, doubling per failure up to a minute, five failures in a row at most.
    @available(
        *, deprecated,
        message:
            "Use EventStreamReconnection(), or call reconnecting() without a policy: try await client.bytes(for: endpoint).events.reconnecting()."
    )
    public static var `default`: EventStreamReconnection { EventStreamReconnection() }
}
