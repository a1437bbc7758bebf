import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// The hostile raw-socket server (scripts/websocket-peers/hostile_server.py): each violation is
    /// a typed error, and the client closes the socket, with the close code RFC 6455 asks for when
    /// the handshake had succeeded.
    @Suite(.webSocketPeers) struct WebSocketHostileServerTests {
        let client = EndpointClient(transport: try! CurlTransport())

        @Test(arguments: [
            "handshake/wrong-accept", "handshake/no-upgrade", "handshake/no-connection",
            "handshake/unrequested-subprotocol", "handshake/unrequested-extension",
        ])
        func aBadAcceptanceFailsTheHandshake(path: String) async throws {
            let endpoint = HostilePath(path)
            await #expect {
                _ = try await client.webSocket(endpoint)
            } throws: { error in
                guard case HostilePath.TaskError.streamError(let inner) = error,
                    case WebSocketError.handshakeFailed = inner
                else { return false }
                return true
            }
            #expect(try await endpoint.report().ended)
        }

        @Test func aHandshakeAnsweredWith200IsAnErrorResponse() async throws {
            await #expect {
                _ = try await client.webSocket(HostilePath("handshake/200"))
            } throws: { error in
                guard case HostilePath.TaskError.errorResponse(let response, _) = error else { return false }
                return response.statusCode == 200
            }
        }

        @Test(arguments: [
            ("frame/masked", 1002), ("frame/rsv1", 1002), ("frame/rsv2", 1002), ("frame/rsv3", 1002),
            ("frame/continuation-without-start", 1002), ("frame/text-during-fragmented", 1002),
            ("control/long-ping", 1002), ("control/long-close", 1002), ("control/fragmented-ping", 1002),
            ("utf8/invalid-text", 1007), ("utf8/invalid-split", 1007), ("utf8/truncated", 1007),
            ("close/1005", 1002), ("close/1006", 1002), ("close/1015", 1002), ("close/999", 1002),
            ("close/invalid-utf8-reason", 1007), ("close/one-byte", 1002), ("length/msb-set", 1002),
            ("size/over", 1009), ("size/over-fragmented", 1009),
        ])
        func aViolationClosesWithItsCode(path: String, code: Int) async throws {
            let endpoint = HostilePath(path)
            let connection = try await client.webSocket(endpoint)
            var iterator = connection.makeAsyncIterator()
            await #expect {
                while try await iterator.next() != nil {}
            } throws: { error in
                guard case WebSocketError.protocolViolation(_, let closeCode) = error else { return false }
                return closeCode.rawValue == code
            }
            #expect(try await iterator.next() == nil)
            let report = try await endpoint.report()
            #expect(report.ended)
            #expect(report.closeCode == code)
        }

        @Test(arguments: ["frame/opcode/3", "frame/opcode/11"])
        func aReservedOpcodeClosesWith1002(path: String) async throws {
            // Three segments: the opcode is the last.
            let connection = try await client.webSocket(
                HostileOpcode(opcode: path.split(separator: "/").last.map(String.init)!))
            var iterator = connection.makeAsyncIterator()
            await #expect {
                while try await iterator.next() != nil {}
            } throws: { error in
                guard case WebSocketError.protocolViolation(_, let closeCode) = error else { return false }
                return closeCode == .protocolError
            }
        }

        @Test func aServerThatNeverAnswersPingsTimesOut() async throws {
            let endpoint = HostilePath("ping/no-pong")
            let connection = try await client.webSocket(endpoint)
            let reader = Task { for try await _ in connection {} }
            // The bound is the behaviour: no pong within it.
            await #expect(throws: WebSocketError.self) { try await connection.ping(timeout: 0.5) }
            _ = await reader.result
            let report = try await endpoint.report()
            #expect(report.ended)
            #expect(report.closeCode == 1001)
        }

        @Test func theValidControlPathsPass() async throws {
            let connection = try await client.webSocket(HostilePath("utf8/valid-split"))
            var iterator = connection.makeAsyncIterator()
            #expect(try await iterator.next() == "price: €")
            try await connection.send("again")
            #expect(try await iterator.next() == "again")
            try connection.close()
        }

        @Test func cancellingTheReaderClosesWith1001() async throws {
            let endpoint = HostilePath("utf8/valid-split")
            let connection = try await client.webSocket(endpoint)
            let started = AsyncStream<Void>.makeStream()
            let reader = Task {
                var iterator = connection.makeAsyncIterator()
                _ = try await iterator.next()
                started.continuation.yield()
                while try await iterator.next() != nil {}
            }
            for await _ in started.stream { break }
            reader.cancel()
            _ = await reader.result
            let report = try await endpoint.report()
            #expect(report.ended)
            #expect(report.closeCode == 1001)
        }
    }

    /// `/frame/opcode/{n}` on the hostile server.
    struct HostileOpcode: WebSocketEndpoint {
        typealias Server = WebSocketHostileServer
        typealias Response = Void
        typealias Outgoing = String
        typealias Incoming = String
        struct PathComponents: Sendable { let opcode: String }
        static let definition: Definition<HostileOpcode> = Definition(path: "frame/opcode/\(path: \.opcode)")
        let pathComponents: PathComponents
        init(opcode: String) { pathComponents = PathComponents(opcode: opcode) }
    }
#endif
