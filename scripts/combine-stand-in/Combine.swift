// A type-checking stand-in for Apple's Combine: just the API the library uses, no behaviour.
public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
}
public struct AnyPublisher<Output, Failure: Error>: Publisher {}
public enum Publishers {
    public struct HandleEvents<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
    }
}
extension Publisher {
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> { AnyPublisher() }
    public func handleEvents(receiveCancel: (() -> Void)? = nil) -> Publishers.HandleEvents<Self> { .init() }
}
public final class Future<Output, Failure: Error>: Publisher {
    public typealias Promise = (Result<Output, Failure>) -> Void
    public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {}
}
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
    public typealias Output = DeferredPublisher.Output
    public typealias Failure = DeferredPublisher.Failure
    public init(createPublisher: @escaping () -> DeferredPublisher) {}
}
