import Foundation
import Testing

@testable import Endpoints

/// The connection's life as a state alone: what each event asks the connection to do.
@Suite struct WebSocketConnectionStateTests {
    @Test func messagesAndPingsWhileOpen() {
        var state = WebSocketConnectionState()
        #expect(state.received(.message(.text("a"))) == .deliver(.text("a")))
        #expect(state.received(.ping(Data([1]))) == .sendPong(Data([1])))
        #expect(state.received(.pong(Data([2]))) == .pongArrived(Data([2])))
        #expect(state.isOpen)
    }

    @Test func theServerClosingFirstIsAnsweredWithItsCode() {
        var state = WebSocketConnectionState()
        let closure = WebSocketConnectionState.Closure(code: WebSocketCloseCode(rawValue: 4001), reason: "bye")
        #expect(
            state.received(.close(code: WebSocketCloseCode(rawValue: 4001), reason: "bye"))
                == .replyClose(code: WebSocketCloseCode(rawValue: 4001), closure))
        #expect(state.closure == closure)
        #expect(state.received(.message(.text("late"))) == .none)
        #expect(state.socketEnded() == nil)
    }

    @Test func aCloseFrameWithoutACodeReadsAs1005() {
        var state = WebSocketConnectionState()
        guard case .replyClose(nil, let closure) = state.received(.close(code: nil, reason: "")) else {
            Issue.record("expected a reply without a code")
            return
        }
        #expect(closure.code == .noStatusReceived)
    }

    @Test func closingOnceSendsOneFrameAndTheEndKeepsOurCode() {
        var state = WebSocketConnectionState()
        #expect(state.close(code: .goingAway, reason: "") == .sendClose(.goingAway, ""))
        #expect(state.close(code: .normalClosure, reason: "") == .none)
        #expect(!state.isOpen)
        #expect(state.received(.message(.text("in flight"))) == .none)
        #expect(state.received(.ping(Data())) == .none)
        #expect(state.socketEnded() == nil)
        #expect(state.closure?.code == .goingAway)
    }

    @Test func theServersAnswerToOurCloseEnds() {
        var state = WebSocketConnectionState()
        _ = state.close(code: .normalClosure, reason: "done")
        guard case .end(let closure) = state.received(.close(code: .normalClosure, reason: "")) else {
            Issue.record("expected the end")
            return
        }
        #expect(closure.code == .normalClosure)
    }

    @Test func aSocketEndingWithoutCloseFramesIs1006() {
        var state = WebSocketConnectionState()
        #expect(state.socketEnded()?.code == .abnormalClosure)
        #expect(state.socketEnded() == nil)
    }

    @Test func aViolationClosesWithItsCodeOnce() {
        var state = WebSocketConnectionState()
        #expect(state.failed(.invalidUTF8InText) == .invalidPayloadData)
        #expect(state.failed(.maskedFrame) == nil)
        #expect(state.closure?.code == .invalidPayloadData)
    }
}
