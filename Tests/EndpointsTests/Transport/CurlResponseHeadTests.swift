import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// The head as libcurl hands it over, line by line: what is kept, what is refused.
    @Suite struct CurlResponseHeadTests {
        private func feed(_ lines: [String], into head: inout CurlResponseHead) -> [CurlResponseHead.Step] {
            lines.map { line in Array(line.utf8).withUnsafeBytes { head.consume($0) } }
        }

        @Test func aHeadEndsWithItsBlankLineAndKeepsItsFields() throws {
            var head = CurlResponseHead()
            let steps = feed(
                ["HTTP/1.1 201 Created\r\n", "Content-Type: text/plain\r\n", "X-Two:  a \r\n", "x-two: b\r\n", "\r\n"],
                into: &head)
            #expect(steps == [.more, .more, .more, .more, .ended])
            #expect(head.isComplete)
            #expect(head.statusCode == 201)
            let response = try #require(head.response(url: URL(string: "http://example.com/")!))
            #expect(response.statusCode == 201)
            #expect(response.value(forHTTPHeaderField: "content-type") == "text/plain")
            #expect(response.value(forHTTPHeaderField: "X-Two") == "a, b")
            #expect(head.value(of: "x-TWO") == "a, b")
        }

        @Test func http2StatusLinesHaveNoMinorVersionNorReason() {
            var head = CurlResponseHead()
            #expect(feed(["HTTP/2 204\r\n", "\r\n"], into: &head) == [.more, .ended])
            #expect(head.statusCode == 204)
            #expect(head.versionText == "HTTP/2")
        }

        @Test func interimHeadsAreDroppedButTheFinalOneKept() {
            var head = CurlResponseHead()
            let steps = feed(
                [
                    "HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 103 Early Hints\r\n", "Link: </a>\r\n", "\r\n",
                    "HTTP/1.1 200 OK\r\n", "A: 1\r\n", "\r\n", "Trailer: after\r\n",
                ],
                into: &head)
            #expect(steps == [.more, .interimEnded, .more, .more, .interimEnded, .more, .more, .ended, .ignored])
            #expect(head.statusCode == 200)
            #expect(head.value(of: "Link") == nil)
            #expect(head.value(of: "Trailer") == nil)
        }

        @Test(arguments: [
            ("X: a\rb\r\n", CurlResponseHead.Problem.invalidFieldValue),
            ("X: a\0b\r\n", .invalidFieldValue),
            (" folded\r\n", .foldedLine),
            ("\tfolded\r\n", .foldedLine),
            ("Bad Name: x\r\n", .invalidFieldName),
            (": no name\r\n", .invalidFieldName),
            ("no colon\r\n", .invalidFieldName),
        ])
        func malformedFieldLinesAreRefused(line: String, problem: CurlResponseHead.Problem) {
            var head = CurlResponseHead()
            let steps = feed(["HTTP/1.1 200 OK\r\n", line], into: &head)
            #expect(steps.last == .invalid(problem))
        }

        @Test(arguments: ["HTTP/1.1 2000 OK\r\n", "HTTP/1.1 20 OK\r\n", "ICY 200 OK\r\n", "HTTP/1.1 099 x\r\n", "\r\n"])
        func malformedStatusLinesAreRefused(line: String) {
            var head = CurlResponseHead()
            #expect(feed([line], into: &head) == [.invalid(.malformedStatusLine)])
        }

        @Test func aHeadPastTheLimitIsRefused() {
            var head = CurlResponseHead()
            let field = "X-Big: " + String(repeating: "a", count: 1000) + "\r\n"
            let steps = feed(["HTTP/1.1 200 OK\r\n"] + Array(repeating: field, count: 70), into: &head)
            #expect(steps.contains(.invalid(.tooLarge)))
            #expect(!head.isComplete)
        }

        @Test func aHeadWithoutItsBlankLineIsNotComplete() {
            var head = CurlResponseHead()
            _ = feed(["HTTP/1.1 200 OK\r\n", "Content-Length: 5\r\n"], into: &head)
            #expect(!head.isComplete)
        }
    }

    /// Who waits for an exchange, changed by the caller's side and the loop thread alike.
    @Suite struct CurlDeliveryTests {
        private struct Marker: Error {}

        @Test func aStopBeforeTheStartFailsTheStart() async {
            var delivery = CurlDelivery()
            guard case .notStarted = delivery.stop(with: Marker()) else {
                Issue.record("expected .notStarted")
                return
            }
            await #expect(throws: Marker.self) {
                _ = try await withCheckedThrowingContinuation { (continuation: CurlDelivery.Continuation) in
                    switch delivery.start(continuation) {
                    case .send: Issue.record("a stopped exchange was sent")
                    case .fail(let error): continuation.resume(throwing: error)
                    }
                }
            }
        }

        @Test func theCallerIsResumedOnceWhateverComesFirst() async throws {
            // A stop after the head went out ends the body, not the (already resumed) caller.
            var delivery = CurlDelivery(streamedBody: ResponseBody(Data("body".utf8)))
            let answer = try await withCheckedThrowingContinuation { (continuation: CurlDelivery.Continuation) in
                guard case .send = delivery.start(continuation) else { return }
                #expect(delivery.isWaiting)
                let waiting = delivery.headArrived()
                #expect(waiting != nil)
                #expect(delivery.headArrived() == nil)
                guard let waiting else { return }
                waiting.continuation.resume(
                    returning: CurlAnswer(
                        head: CurlResponseHead(), url: URL(string: "http://x/")!, body: waiting.body,
                        isRedirect: false))
            }
            #expect(try await answer.body.collect(upTo: 100) == Data("body".utf8))
            #expect(!answer.isRedirect)
            guard case .endBody = delivery.stop(with: Marker()) else {
                Issue.record("expected the body to end")
                return
            }
            guard case .none = delivery.finish() else {
                Issue.record("a stopped exchange finished twice")
                return
            }
        }
    }
#endif
