import Endpoints
import Foundation

/// A loopback port that refuses every connection and that nothing else can take while it exists.
///
/// Testing a refused connection with a stopped ``TestServer``'s port is a race: once the server
/// stops, any process (or a test running in parallel) may bind that port and answer. A
/// `ClosedPort` binds a kernel-chosen port without listening on it, so connections to it are
/// refused (`URLError.cannotConnectToHost`) for as long as the value lives.
///
/// ```swift
/// @Test func refusedConnectionFails() async throws {
///     let closed = try ClosedPort()
///     defer { closed.close() }
///     await #expect(throws: URLError.self) {
///         _ = try await URLSession.shared.data(from: closed.url("/anything"))
///     }
/// }
/// ```
public final class ClosedPort: Sendable {
    private let descriptor: Locked<Int32?>

    /// The reserved port.
    public let port: UInt16

    /// The port's root URL, for example `http://127.0.0.1:54321`.
    public let baseURL: URL

    /// Binds a free ephemeral port on `host` without listening on it.
    ///
    /// - Parameter host: A numeric address to bind; defaults to the IPv4 loopback address.
    /// - Throws: ``TestServer/SocketError`` when the address cannot be resolved or bound.
    public init(host: String = "127.0.0.1") throws {
        let bound = try Socket.listen(host: host, port: 0, listening: false)
        descriptor = Locked(bound.fd)
        port = bound.port
        let authority = host.contains(":") ? "[\(host)]:\(bound.port)" : "\(host):\(bound.port)"
        baseURL = URL(string: "http://\(authority)") ?? URL(string: "http://127.0.0.1:\(bound.port)")!
    }

    deinit {
        close()
    }

    /// Releases the port. Calling it again does nothing; the value's deinitializer also calls it.
    public func close() {
        let fd = descriptor.withLock { fd -> Int32? in
            defer { fd = nil }
            return fd
        }
        if let fd { Socket.closeDescriptor(fd) }
    }

    /// Returns ``baseURL`` followed by `pathAndQuery`, used as written.
    ///
    /// ```swift
    /// closed.url("/echo")  // http://127.0.0.1:PORT/echo
    /// ```
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + pathAndQuery) ?? baseURL
    }
}
