/// The status code of a WebSocket close frame (RFC 6455 §7.4, and IANA's "WebSocket Close Code
/// Number Registry"), with the registered codes as static members.
///
/// ```swift
/// let code = WebSocketCloseCode.goingAway          // 1001
/// code.mayBeSent                                   // true
/// WebSocketCloseCode(rawValue: 1005).mayBeSent     // false: it only stands for "no code"
/// ```
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as it is sent: two bytes, big-endian, at the start of the close frame's payload.
    public let rawValue: UInt16

    /// A code of any value; ``mayBeSent`` says whether it is allowed in a close frame.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = Self(rawValue: 1000)
    /// 1001: the endpoint goes away (a server going down, a client leaving, a task cancelled).
    public static let goingAway = Self(rawValue: 1001)
    /// 1002: the other side broke the protocol.
    public static let protocolError = Self(rawValue: 1002)
    /// 1003: a kind of data the endpoint cannot take (binary to a text-only endpoint).
    public static let unsupportedData = Self(rawValue: 1003)
    /// 1005: no code was in the close frame. Never sent: it only stands for its absence.
    public static let noStatusReceived = Self(rawValue: 1005)
    /// 1006: the connection ended without a close frame. Never sent.
    public static let abnormalClosure = Self(rawValue: 1006)
    /// 1007: a message's data did not match its type (a text message that is not UTF-8).
    public static let invalidPayloadData = Self(rawValue: 1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = Self(rawValue: 1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = Self(rawValue: 1009)
    /// 1010 (client only): the server did not negotiate an extension the client requires.
    public static let mandatoryExtension = Self(rawValue: 1010)
    /// 1011 (server): an unexpected condition stopped the server from fulfilling the request.
    public static let internalServerError = Self(rawValue: 1011)
    /// 1012 (IANA): the service is restarting.
    public static let serviceRestart = Self(rawValue: 1012)
    /// 1013 (IANA): the service is overloaded; try again later.
    public static let tryAgainLater = Self(rawValue: 1013)
    /// 1014 (IANA): a gateway or proxy got an invalid answer from upstream.
    public static let badGateway = Self(rawValue: 1014)
    /// 1015: the TLS handshake failed. Never sent.
    public static let tlsHandshakeFailure = Self(rawValue: 1015)

    /// Whether the code may appear in a close frame, sent or received (RFC 6455 §7.4.1, §7.4.2):
    /// the codes the RFC and IANA assign for the wire (1000–1003, 1007–1014), the range for
    /// registered libraries and frameworks (3000–3999) and the range for private use (4000–4999).
    /// Below 1000, 1004 (reserved), 1005, 1006, 1015, the unassigned rest of 1000–2999 and
    /// 5000 up are not.
    public var mayBeSent: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The code, with its registered name when it has one: "1001 (going away)".
    public var description: String {
        let name: String? =
            switch rawValue {
            case 1000: "normal closure"
            case 1001: "going away"
            case 1002: "protocol error"
            case 1003: "unsupported data"
            case 1005: "no status received"
            case 1006: "abnormal closure"
            case 1007: "invalid payload data"
            case 1008: "policy violation"
            case 1009: "message too big"
            case 1010: "mandatory extension"
            case 1011: "internal server error"
            case 1012: "service restart"
            case 1013: "try again later"
            case 1014: "bad gateway"
            case 1015: "TLS handshake failure"
            default: nil
            }
        return name.map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}
