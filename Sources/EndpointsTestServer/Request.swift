import Foundation

extension TestServer {
    /// One HTTP request exactly as the server received it.
    ///
    /// Requests are passed to custom route handlers and recorded in ``TestServer/requests`` so tests
    /// can assert on what a client actually put on the wire:
    ///
    /// ```swift
    /// let sent = try #require(server.requests.last)
    /// #expect(sent.method == "POST")
    /// #expect(sent.rawPath == "/users/a%2Fb")
    /// #expect(sent.header("content-type") == "application/json")
    /// ```
    public struct Request: Sendable {
        /// The request method as sent, for example `"GET"`.
        public let method: String
        /// The request target's path, before any `?`, exactly as sent (not percent-decoded).
        public let rawPath: String
        /// Everything after the first `?` in the request target, exactly as sent, or `nil` when there was no `?`.
        public let rawQuery: String?
        /// The header fields in the order they were sent, with names in their original case.
        public let headers: [(name: String, value: String)]
        /// The request body, already de-chunked when it was sent with `Transfer-Encoding: chunked`.
        public let body: Data
        /// The HTTP version from the request line, for example `"HTTP/1.1"`.
        public let version: String

        /// Creates a request value, for example to unit-test a route handler without a socket.
        public init(
            method: String,
            rawPath: String,
            rawQuery: String? = nil,
            headers: [(name: String, value: String)] = [],
            body: Data = Data(),
            version: String = "HTTP/1.1"
        ) {
            self.method = method
            self.rawPath = rawPath
            self.rawQuery = rawQuery
            self.headers = headers
            self.body = body
            self.version = version
        }

        /// Returns the value of the first header whose name matches `name` case-insensitively.
        ///
        /// ```swift
        /// request.header("Authorization")  // "Bearer abc"
        /// ```
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// The query's name/value pairs in order, decoded with HTML form rules
        /// (`+` becomes a space, then percent-escapes are decoded).
        ///
        /// `?a=1&b=x+y&c` yields `[("a", "1"), ("b", "x y"), ("c", "")]`.
        public var queryItems: [(name: String, value: String)] {
            guard let rawQuery else { return [] }
            return rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let value = parts.count > 1 ? formDecode(parts[1]) : ""
                return (formDecode(parts[0]), value)
            }
        }

        /// Returns the form-decoded value of the first query item called `name`.
        ///
        /// ```swift
        /// // GET /search?q=swift+testing
        /// request.queryValue("q")  // "swift testing"
        /// ```
        public func queryValue(_ name: String) -> String? {
            queryItems.first { $0.name == name }?.value
        }
    }
}

/// Decodes `+` as a space, then `%XX` escapes; malformed escapes are kept literally.
func formDecode(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    let source = Array(text.utf8)
    var index = 0
    while index < source.count {
        let byte = source[index]
        if byte == UInt8(ascii: "+") {
            bytes.append(UInt8(ascii: " "))
        } else if byte == UInt8(ascii: "%"), index + 2 < source.count,
            let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2])
        {
            bytes.append(high << 4 | low)
            index += 2
        } else {
            bytes.append(byte)
        }
        index += 1
    }
    return String(decoding: bytes, as: UTF8.self)
}

func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}
