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

        /// libcurl answered a proxy's 407 itself: the head starts over at the next status line,
        /// its fields forgotten and its size still counted.
        @Test func aHeadStartsOverForTheResponseAfterAProxyRound() throws {
            var head = CurlResponseHead()
            let first = ["HTTP/1.1 407 Proxy Authentication Required\r\n", "Proxy-Authenticate: Digest x\r\n", "\r\n"]
            #expect(feed(first, into: &head) == [.more, .more, .ended])
            let next = "HTTP/1.1 200 OK\r\n"
            #expect(Array(next.utf8).withUnsafeBytes(CurlResponseHead.isStatusLine))
            #expect(!Array("X-Status: HTTP/1.1 200 OK\r\n".utf8).withUnsafeBytes(CurlResponseHead.isStatusLine))
            #expect(!Array("\r\n".utf8).withUnsafeBytes(CurlResponseHead.isStatusLine))
            head.startOver()
            #expect(!head.isComplete)
            #expect(head.size == first.joined().utf8.count)
            #expect(feed([next, "Content-Length: 2\r\n", "\r\n"], into: &head) == [.more, .more, .ended])
            #expect(head.statusCode == 200)
            #expect(head.value(of: "Proxy-Authenticate") == nil)
            #expect(head.value(of: "Content-Length") == "2")
        }

        @Test func http2StatusLinesHaveNoMinorVersionNorReason() {
            var head = CurlResponseHead()
            #expect(feed(["HTTP/2 204\r\n", "\r\n"], into: &head) == [.more, .ended])
            #expect(head.statusCode == 204)
            #expect(head.versionText == "HTTP/2")
        }

        /// The protocol name in any case, as libcurl and Linux's URLSession read it.
        @Test func aLowerCaseProtocolNameIsRead() {
            var head = CurlResponseHead()
            #expect(feed(["http/1.1 202 Accepted\r\n", "\r\n"], into: &head) == [.more, .ended])
            #expect(head.statusCode == 202)
            #expect(head.versionText == "HTTP/1.1")
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

        @Test(arguments: [
            "HTTP/1.1 2000 OK\r\n", "HTTP/1.1 20 OK\r\n", "ICY 200 OK\r\n", "HTTX/1.1 200 OK\r\n", "HTTP1.1 200 OK\r\n",
            "HTTP/1.1 099 x\r\n", "\r\n",
        ])
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

        /// A transfer coding other than `chunked` was never offered (no `TE` is sent), and libcurl
        /// would pass its bytes on as the body: the head is refused when it ends. `identity` (RFC
        /// 2616's "none") and any case of `chunked` are taken.
        @Test(arguments: [
            ("gzip, chunked", false), ("gzip", false), ("chunked, chunked", true), ("Chunked", true),
            ("identity", true), (" chunked ", true), ("x-custom, chunked", false),
        ])
        func aTransferCodingOtherThanChunkedIsRefused(codings: String, accepted: Bool) {
            var head = CurlResponseHead()
            let steps = feed(["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: \(codings)\r\n", "\r\n"], into: &head)
            #expect(steps.last == (accepted ? .ended : .invalid(.unsupportedTransferCoding)))
            #expect(head.isComplete == accepted)
        }

        /// Field values are UTF-8 when their bytes are valid UTF-8, and ISO-8859-1 otherwise: every
        /// byte kept, none replaced.
        @Test func aFieldValueThatIsNotUTF8IsReadAsLatin1() throws {
            var head = CurlResponseHead()
            let lines: [[UInt8]] = [
                Array("HTTP/1.1 200 OK\r\n".utf8),
                Array("X-Latin: caf".utf8) + [0xE9] + Array("\r\n".utf8),
                Array("X-UTF8: café\r\n".utf8),
                Array("\r\n".utf8),
            ]
            let steps = lines.map { line in line.withUnsafeBytes { head.consume($0) } }
            #expect(steps.last == .ended)
            #expect(head.value(of: "x-latin") == "café")
            #expect(head.value(of: "X-UTF8") == "café")
            let response = try #require(head.response(url: URL(string: "http://example.com/")!))
            let latin = try #require(response.value(forHTTPHeaderField: "X-Latin"))
            #expect(latin.unicodeScalars.map { UInt8($0.value) } == Array("caf".utf8) + [0xE9])
            #expect(response.value(forHTTPHeaderField: "X-UTF8") == "café")
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
                        redirectTarget: nil))
            }
            #expect(try await answer.body.collect(upTo: 100) == Data("body".utf8))
            #expect(answer.redirectTarget == nil)
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
