import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The opening handshake: the key, the request's fields, and every way an answer can fail.
@Suite struct WebSocketHandshakeTests {
    /// RFC 6455 §1.3's example key and its accept value.
    private let rfcKey = "dGhlIHNhbXBsZSBub25jZQ=="
    private let rfcAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    /// A valid answer to the RFC's key, with `changes` applied (`nil` removes a field).
    private func answer(_ changes: [String: String?] = [:]) -> [String: String] {
        var fields = ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": rfcAccept]
        for (name, value) in changes { fields[name] = value }
        return fields
    }

    @Test func theRFCExampleAccept() throws {
        #expect(WebSocketHandshake.accept(for: rfcKey) == rfcAccept)
        let handshake = try WebSocketHandshake(key: rfcKey)
        #expect(try handshake.validate(statusCode: 101, headerFields: answer()) == nil)
    }

    /// 16 bytes from the caller's generator, in base64; the same seed gives the same key.
    @Test func theKeyIsSixteenRandomBytes() throws {
        var random = SplitMix64(seed: 11)
        let handshake = try WebSocketHandshake(using: &random)
        #expect(handshake.key.count == 24)
        #expect(Data(base64Encoded: handshake.key)?.count == 16)
        var again = SplitMix64(seed: 11)
        #expect(try WebSocketHandshake(using: &again).key == handshake.key)
        #expect(try WebSocketHandshake(using: &again).key != handshake.key)
    }

    @Test func theRequestsFields() throws {
        let plain = try WebSocketHandshake(key: rfcKey)
        #expect(
            plain.requestHeaderFields.map(\.name) == [
                "Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version",
            ])
        #expect(plain.requestHeaderFields.map(\.value) == ["websocket", "Upgrade", rfcKey, "13"])
        let offering = try WebSocketHandshake(key: rfcKey, subprotocols: ["chat.v2", "chat"])
        #expect(offering.requestHeaderFields.last?.name == "Sec-WebSocket-Protocol")
        #expect(offering.requestHeaderFields.last?.value == "chat.v2, chat")
    }

    @Test func subprotocolsMustBeDistinctTokens() {
        for bad in ["", "two words", "a,b", "\"quoted\"", "naïve", "semi;colon"] {
            #expect(throws: WebSocketHandshakeError.invalidSubprotocol(bad)) {
                try WebSocketHandshake(key: rfcKey, subprotocols: ["ok", bad])
            }
        }
        #expect(throws: WebSocketHandshakeError.duplicateSubprotocol("chat")) {
            try WebSocketHandshake(key: rfcKey, subprotocols: ["chat", "v2", "chat"])
        }
    }

    /// Names in any case, values compared without case where the RFC says so, white space
    /// around values ignored, and `Connection` as a list.
    @Test func lenientWhereTheRFCAllows() throws {
        let handshake = try WebSocketHandshake(key: rfcKey)
        let fields = [
            "upgrade": " WebSocket ", "CONNECTION": "keep-alive, UPGRADE", "sec-websocket-accept": "\t\(rfcAccept) ",
            "Sec-WebSocket-Extensions": "  ",
        ]
        #expect(try handshake.validate(statusCode: 101, headerFields: fields) == nil)
        // Two fields whose names differ only in case are one list.
        #expect(
            try handshake.validate(
                statusCode: 101, headerFields: answer(["Connection": "keep-alive", "connection": "upgrade"])) == nil)
    }

    @Test(arguments: [100, 200, 301, 401, 426, 500])
    func aStatusOtherThan101(_ status: Int) throws {
        let handshake = try WebSocketHandshake(key: rfcKey)
        #expect(throws: WebSocketHandshakeError.unexpectedStatus(status)) {
            try handshake.validate(statusCode: status, headerFields: answer())
        }
    }

    @Test func aMissingOrWrongUpgrade() throws {
        let handshake = try WebSocketHandshake(key: rfcKey)
        #expect(throws: WebSocketHandshakeError.upgradeNotWebSocket(nil)) {
            try handshake.validate(statusCode: 101, headerFields: answer(["Upgrade": nil]))
        }
        for value in ["h2c", "websocket, h2c", "web socket", ""] {
            #expect(throws: WebSocketHandshakeError.upgradeNotWebSocket(value)) {
                try handshake.validate(statusCode: 101, headerFields: answer(["Upgrade": value]))
            }
        }
    }

    @Test func aConnectionWithoutUpgrade() throws {
        let handshake = try WebSocketHandshake(key: rfcKey)
        #expect(throws: WebSocketHandshakeError.connectionNotUpgrade(nil)) {
            try handshake.validate(statusCode: 101, headerFields: answer(["Connection": nil]))
        }
        for value in ["keep-alive", "upgrades", "close, keep-alive", "up grade"] {
            #expect(throws: WebSocketHandshakeError.connectionNotUpgrade(value)) {
                try handshake.validate(statusCode: 101, headerFields: answer(["Connection": value]))
            }
        }
    }

    @Test func aWrongAccept() throws {
        let handshake = try WebSocketHandshake(key: rfcKey)
        #expect(throws: WebSocketHandshakeError.acceptMismatch(nil)) {
            try handshake.validate(statusCode: 101, headerFields: answer(["Sec-WebSocket-Accept": nil]))
        }
        // Another key's accept, the key itself, the right one in another case, and twice.
        for value in [
            WebSocketHandshake.accept(for: "AQIDBAUGBwgJCgsMDQ4PEA=="), rfcKey, rfcAccept.lowercased(),
            "\(rfcAccept), \(rfcAccept)",
        ] {
            #expect(throws: WebSocketHandshakeError.acceptMismatch(value)) {
                try handshake.validate(statusCode: 101, headerFields: answer(["Sec-WebSocket-Accept": value]))
            }
        }
    }

    @Test func anExtensionNobodyOffered() throws {
        let handshake = try WebSocketHandshake(key: rfcKey)
        #expect(throws: WebSocketHandshakeError.extensionNotOffered("permessage-deflate")) {
            try handshake.validate(
                statusCode: 101, headerFields: answer(["Sec-WebSocket-Extensions": "permessage-deflate"]))
        }
    }

    @Test func subprotocolNegotiation() throws {
        let offering = try WebSocketHandshake(key: rfcKey, subprotocols: ["chat.v2", "chat"])
        #expect(
            try offering.validate(statusCode: 101, headerFields: answer(["Sec-WebSocket-Protocol": "chat"])) == "chat")
        #expect(
            try offering.validate(statusCode: 101, headerFields: answer(["Sec-WebSocket-Protocol": " chat.v2 "]))
                == "chat.v2")
        // The server may choose none.
        #expect(try offering.validate(statusCode: 101, headerFields: answer()) == nil)
        #expect(try offering.validate(statusCode: 101, headerFields: answer(["Sec-WebSocket-Protocol": ""])) == nil)
        // Not offered: another one, another case, two at once.
        for value in ["mqtt", "CHAT", "chat, chat.v2"] {
            #expect(throws: WebSocketHandshakeError.subprotocolNotOffered(value)) {
                try offering.validate(statusCode: 101, headerFields: answer(["Sec-WebSocket-Protocol": value]))
            }
        }
        // None offered: none may be chosen.
        let plain = try WebSocketHandshake(key: rfcKey)
        #expect(throws: WebSocketHandshakeError.subprotocolNotOffered("chat")) {
            try plain.validate(statusCode: 101, headerFields: answer(["Sec-WebSocket-Protocol": "chat"]))
        }
    }

    /// The check reads an `HTTPURLResponse` as it reads fields.
    @Test func anHTTPURLResponse() throws {
        let handshake = try WebSocketHandshake(key: rfcKey, subprotocols: ["chat"])
        let url = try #require(URL(string: "http://127.0.0.1/socket"))
        let accepted = HTTPURLResponse(
            url: url, statusCode: 101, httpVersion: "HTTP/1.1",
            headerFields: answer(["Sec-WebSocket-Protocol": "chat"]))
        #expect(try handshake.validate(try #require(accepted)) == "chat")
        let refused = HTTPURLResponse(url: url, statusCode: 401, httpVersion: "HTTP/1.1", headerFields: [:])
        #expect(throws: WebSocketHandshakeError.unexpectedStatus(401)) { try handshake.validate(try #require(refused)) }
    }

    @Test func descriptionsNameTheCause() {
        #expect(WebSocketHandshakeError.unexpectedStatus(200).description.contains("status 200 instead of 101"))
        #expect(WebSocketHandshakeError.upgradeNotWebSocket(nil).description.contains("no value"))
        #expect(WebSocketHandshakeError.subprotocolNotOffered("x").description.contains("\"x\""))
    }
}
