import Foundation
import Testing

@testable import Endpoints

/// The bounded buffer between a producer and the one reader of a body (its writer is internal:
/// transports make a streamed body from an `AsyncSequence`, tested last here).
@Suite struct ResponseBodyTests {
    @Test func aWriterWaitsWhileTheReaderIsBehind() async throws {
        let (body, writer) = ResponseBody.makeStream(bufferLimit: 4)
        let written = LockedBox(0)
        let producer = Task {
            for index in 0..<10 {
                try await writer.write(Data([UInt8(index), UInt8(index)]))
                written.mutate { $0 += 1 }
            }
            writer.finish()
        }
        // Nothing is read yet: the third write makes 6 bytes wait, more than 4, so it does not return.
        for _ in 0..<1000 where written.value < 2 { try await Task.sleep(nanoseconds: 1_000_000) }
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(written.value == 2)
        let data = try await body.collect()
        #expect(data == Data((0..<10).flatMap { [UInt8($0), UInt8($0)] }))
        try await producer.value
    }

    @Test func aBodyDroppedUnreadStopsItsWriter() async throws {
        var (body, writer): (ResponseBody?, ResponseBody.Writer) = ResponseBody.makeStream(bufferLimit: 1)
        _ = body
        body = nil
        #expect(writer.isCancelled)
        await #expect(throws: CancellationError.self) { try await writer.write(Data([1, 2])) }
    }

    @Test func aWriterErrorReachesTheReaderAfterTheChunksBeforeIt() async throws {
        let (body, writer) = ResponseBody.makeStream()
        try await writer.write(Data("ab".utf8))
        writer.finish(throwing: URLError(.networkConnectionLost))
        var iterator = body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("ab".utf8))
        await #expect(throws: URLError.self) { _ = try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func collectStopsPastItsLimit() async throws {
        let body = ResponseBody(
            AsyncThrowingStream { continuation in
                continuation.yield(Data(count: 10))
                continuation.yield(Data(count: 10))
                continuation.finish()
            })
        await #expect(throws: ResponseBodyTooLarge.self) { _ = try await body.collect(upTo: 15) }
    }

    @Test func cancellingTheReaderEndsAWaitingRead() async throws {
        let (body, writer) = ResponseBody.makeStream()
        let reader = Task { try await body.collect() }
        try await Task.sleep(nanoseconds: 10_000_000)
        reader.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reader.value }
        #expect(writer.isCancelled)
    }

    /// What a custom transport does: the public initializer over a sequence of chunks pauses the
    /// sequence while the limit waits unread.
    @Test func aBodyMadeFromASequenceStopsAskingWhileTheReaderIsBehind() async throws {
        let pulled = LockedBox(0)
        let chunks = AsyncStream<Data>(unfolding: {
            pulled.mutate { $0 += 1 }
            return pulled.value <= 10 ? Data([1, 2]) : nil
        })
        let body = ResponseBody(chunks, bufferLimit: 4)
        // Nothing is read: the third chunk makes 6 bytes wait, more than 4, so no fourth is asked for.
        for _ in 0..<1000 where pulled.value < 3 { try await Task.sleep(nanoseconds: 1_000_000) }
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(pulled.value == 3)
        #expect(try await body.collect() == Data((0..<10).flatMap { _ in [UInt8(1), 2] }))
    }

    /// A transport's `AsyncThrowingStream` learns that the reader went away, to close its connection.
    @Test func aBodyMadeFromAStreamEndsTheStreamWhenTheReaderLeaves() async throws {
        let (chunks, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let terminated = LockedBox(false)
        continuation.onTermination = { _ in terminated.mutate { $0 = true } }
        continuation.yield(Data("first".utf8))
        let reader = Task {
            for try await chunk in ResponseBody(chunks) where chunk == Data("first".utf8) { break }
        }
        try await reader.value
        for _ in 0..<1000 where !terminated.value { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(terminated.value)
    }
}
