import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// WebSockets over the libcurl transport against the `websockets` package's echo server, over
    /// ws:// and wss:// (scripts/websockets.sh).
    @Suite(.webSocketPeers) struct WebSocketEchoTests {
        let client = EndpointClient(transport: try! CurlTransport())

        @Test func jsonMessagesEchoTyped() async throws {
            let connection = try await client.webSocket(EchoNotes())
            var iterator = connection.makeAsyncIterator()
            for count in 1...3 {
                try await connection.send(Note(text: "hello", count: count))
                #expect(try await iterator.next() == Note(text: "hello", count: count))
            }
            try connection.close()
            #expect(try await iterator.next() == nil)
            #expect(connection.closure?.code == .normalClosure)
        }

        @Test func binaryMessagesEchoOverTLS() async throws {
            let ca = try #require(WebSocketPeers.caFile)
            let client = EndpointClient(
                transport: try CurlTransport(tls: try TLSTrust(certificateAuthorities: [ca], trustsSystemRoots: false)))
            let connection = try await client.webSocket(SecureEchoBytes())
            var iterator = connection.makeAsyncIterator()
            let large = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
            for payload in [Data([1, 2, 3]), Data(), large] {
                try await connection.send(payload)
                #expect(try await iterator.next() == payload)
            }
            try connection.close(code: .goingAway)
        }

        /// Over TLS, a reader that falls behind pauses the socket with decrypted bytes left in
        /// OpenSSL, which the socket no longer shows as readable; they are read when the reader
        /// catches up. 12 MiB echoed while a slow reader takes them one message at a time.
        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // .timeLimit
        @Test(.timeLimit(.minutes(5))) func aSlowReaderOverTLSGetsEveryEchoInOrder() async throws {
            let ca = try #require(WebSocketPeers.caFile)
            let client = EndpointClient(
                transport: try CurlTransport(tls: try TLSTrust(certificateAuthorities: [ca], trustsSystemRoots: false)))
            let connection = try await client.webSocket(SecureEchoBytes())
            let count = 96
            func message(_ index: Int) -> Data { Data(repeating: UInt8(truncatingIfNeeded: index), count: 128 * 1024) }
            let reader = Task {
                var iterator = connection.makeAsyncIterator()
                var received = 0
                while received < count, let payload = try await iterator.next() {
                    guard payload == message(received) else { return received }
                    received += 1
                    await Task.yield()
                }
                return received
            }
            for index in 0..<count { try await connection.send(message(index)) }
            #expect(try await reader.value == count)
            try connection.close()
        }

        @Test func anUntrustedServerIsRefused() async throws {
            let connection = EndpointClient(transport: try CurlTransport())
            await #expect(throws: SecureEchoBytes.TaskError.self) { try await connection.webSocket(SecureEchoBytes()) }
        }

        @Test func fragmentsWithAPingBetweenAreReassembled() async throws {
            let connection = try await client.webSocket(EchoText("fragments", interleave: "ping"))
            var iterator = connection.makeAsyncIterator()
            #expect(try await iterator.next() == String(repeating: "abcde", count: 4))
        }

        @Test func theServersPingIsAnsweredWhileReading() async throws {
            let connection = try await client.webSocket(EchoText("ping"))
            var iterator = connection.makeAsyncIterator()
            let answer = try #require(try await iterator.next())
            #expect(answer.contains("\"pong\": true") || answer.contains("\"pong\":true"))
        }

        @Test func theServersCloseCodeAndReasonEndTheSequence() async throws {
            let connection = try await client.webSocket(EchoAction("close", 4001, reason: "later"))
            var iterator = connection.makeAsyncIterator()
            #expect(try await iterator.next() == nil)
            #expect(connection.closure?.code.rawValue == 4001)
            #expect(connection.closure?.reason == "later")
            await #expect(throws: WebSocketError.self) { try await connection.send("too late") }
        }

        @Test func aClientPingGetsItsPong() async throws {
            let connection = try await client.webSocket(EchoNotes())
            let reader = Task {
                for try await _ in connection {}
            }
            try await connection.ping(timeout: TestTiming.giveUp)
            try connection.close()
            try await reader.value
        }

        @Test func theOfferedSubprotocolIsChosen() async throws {
            let connection = try await client.webSocket(EchoText("subprotocol"))
            #expect(connection.subprotocol == "chat.v2")
            try connection.close()
        }

        @Test func theHandshakeCarriesTheEndpointsCredentials() async throws {
            let connection = try await client.webSocket(
                EchoNotes("headers"), middleware: [BearerHeader(token: "s3cret")])
            var iterator = connection.makeAsyncIterator()
            await #expect {
                _ = try await iterator.next()
            } throws: { error in
                // The headers report is not a Note: a typed error naming the message, not an end.
                guard case WebSocketError.undecodableMessage(.text(let text), _) = error else { return false }
                return text.contains("\"authorization\": \"Bearer s3cret\"") && text.contains("sec-websocket-key")
            }
            try await connection.send(Note(text: "still open", count: 1))
            #expect(try await iterator.next() == Note(text: "still open", count: 1))
            try connection.close()
        }

        @Test func aRejectedHandshakeIsTheEndpointsErrorResponse() async throws {
            await #expect {
                _ = try await client.webSocket(EchoAction("reject", 401))
            } throws: { error in
                guard case EchoAction.TaskError.errorResponse(let response, _) = error else { return false }
                return response.statusCode == 401
            }
        }

        /// URLSessionTransport opens a URLSessionWebSocketTask, which FoundationNetworking's
        /// libcurl fails with -1002 (no WebSocket support): reported as `upgradeUnsupported`.
        @Test func aTransportThatCannotUpgradeSaysSo() async throws {
            let client = EndpointClient(session: .shared)
            await #expect {
                _ = try await client.webSocket(EchoNotes())
            } throws: { error in
                guard case EchoNotes.TaskError.streamError(let inner) = error,
                    case WebSocketError.upgradeUnsupported(let transport) = inner
                else { return false }
                return transport.hasPrefix("URLSessionTransport (FoundationNetworking's libcurl")
            }
        }
    }

    /// Sets a bearer token on every request, as an authentication method would.
    struct BearerHeader: Middleware {
        let token: String
        func intercept(
            _ request: URLRequest, context: RequestContext,
            next: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
        ) async throws -> (Data, HTTPURLResponse) {
            var request = request
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            return try await next(request)
        }
    }
#endif
