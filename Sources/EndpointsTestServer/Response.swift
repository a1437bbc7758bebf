import Foundation

extension TestServer {
    /// The response a route produces.
    ///
    /// Build one with a helper and adjust it as needed:
    ///
    /// ```swift
    /// server.route("/users/*") { request in
    ///     var response = TestServer.Response.json(["id": 42])
    ///     response.headers.append((name: "ETag", value: "\"v1\""))
    ///     response.delay = .milliseconds(200)  // respond after 200 ms
    ///     return response
    /// }
    /// ```
    ///
    /// The server always writes `Content-Length` itself (or `Transfer-Encoding: chunked` when
    /// ``chunked`` is set), so any such headers in ``headers`` are ignored. Responses to `HEAD`
    /// requests and with status 1xx, 204 or 304 are sent without a body.
    public struct Response: Sendable {
        /// The status code, for example `200`.
        public var status: Int
        /// Extra header fields, sent in this order.
        public var headers: [(name: String, value: String)]
        /// The body bytes.
        public var body: Data
        /// When `true`, the body is sent with `Transfer-Encoding: chunked`, split into several chunks.
        public var chunked: Bool
        /// How long to wait before sending, in nanoseconds (backs ``delay``).
        var delayNanoseconds: UInt64?
        /// Special wire behaviour used by some built-in routes.
        var behavior: Behavior = .standard

        enum Behavior: Sendable {
            case standard
            /// Send the head, then the body one byte at a time with this pause between bytes.
            case trickle(intervalNanoseconds: UInt64)
            /// Declare this `Content-Length`, send ``body`` (which is shorter), then close the socket.
            case truncate(declaredLength: Int)
        }

        /// Creates a response.
        ///
        /// ```swift
        /// TestServer.Response(status: 201, headers: [("Location", "/items/7")], body: Data())
        /// ```
        public init(
            status: Int = 200,
            headers: [(name: String, value: String)] = [],
            body: Data = Data(),
            chunked: Bool = false
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.chunked = chunked
        }

        /// How long the server waits before sending this response; `nil` sends immediately.
        ///
        /// The wait happens on the connection's own thread, so other connections are unaffected.
        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        public var delay: Duration? {
            get { delayNanoseconds.map { Duration.nanoseconds(Int64(clamping: $0)) } }
            set { delayNanoseconds = newValue.map(nanoseconds(of:)) }
        }

        /// Returns a copy of this response that is sent after `delay`.
        ///
        /// ```swift
        /// return .text("slow").delayed(by: .seconds(1))
        /// ```
        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
        public func delayed(by delay: Duration) -> Response {
            var copy = self
            copy.delay = delay
            return copy
        }

        /// A JSON response encoding `value` with `JSONEncoder` (sorted keys, unescaped slashes).
        ///
        /// If encoding fails, the result is a `500` whose JSON body describes the error.
        ///
        /// ```swift
        /// return .json(["name": "Ada"], status: 201)
        /// ```
        public static func json(_ value: some Encodable & Sendable, status: Int = 200) -> Response {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            do {
                return .json(data: try encoder.encode(value), status: status)
            } catch {
                let message = ErrorBody(code: 500, message: "JSON encoding failed: \(error)")
                return .json(data: (try? encoder.encode(message)) ?? Data(), status: 500)
            }
        }

        /// A JSON response whose body is exactly `jsonString` (it is not validated, so it may be malformed).
        ///
        /// ```swift
        /// return .json(raw: #"{"id": 1, "tags": []}"#)
        /// ```
        public static func json(raw jsonString: String, status: Int = 200) -> Response {
            .json(data: Data(jsonString.utf8), status: status)
        }

        /// A `text/plain; charset=utf-8` response.
        ///
        /// ```swift
        /// return .text("pong")
        /// ```
        public static func text(_ text: String, status: Int = 200) -> Response {
            Response(
                status: status,
                headers: [("Content-Type", "text/plain; charset=utf-8")],
                body: Data(text.utf8)
            )
        }

        /// A response with the given status code, no extra headers and an empty body.
        ///
        /// ```swift
        /// return .status(204)
        /// ```
        public static func status(_ code: Int) -> Response {
            Response(status: code)
        }

        static func json(data: Data, status: Int) -> Response {
            Response(status: status, headers: [("Content-Type", "application/json")], body: data)
        }
    }
}

/// The `{"code": ..., "message": ...}` body used by error and status responses.
struct ErrorBody: Codable, Sendable {
    let code: Int
    let message: String
}

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
private func nanoseconds(of duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0 else { return 0 }
    let total = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !total.overflow else { return UInt64.max }
    return UInt64(total.partialValue) + UInt64(max(0, attoseconds / 1_000_000_000))
}
