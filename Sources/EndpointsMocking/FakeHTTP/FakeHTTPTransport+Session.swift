import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension FakeHTTPTransport {
    /// A `URLSession` whose every request this fake answers, for code that needs a real session
    /// (a third-party client, `session.data(for:)`, `endpointTask`).
    ///
    /// ```swift
    /// let fake = FakeHTTPTransport()
    /// fake.register(.get, "/ping", .text("pong"))
    /// let session = fake.makeSession()
    /// let (data, _) = try await session.data(from: URL(string: "https://api.example.com/ping")!)
    /// ```
    ///
    /// The session loads through a `URLProtocol` class made for this fake alone (in the
    /// configuration's `protocolClasses`), so requests of other sessions and other fakes never
    /// reach it. Unlike ``withFakeTransport(_:isolation:test:)`` it is not scoped to a task: it
    /// answers for as long as the fake lives. A request nothing matches fails with an error.
    ///
    /// - Parameter configuration: The configuration to start from; its `protocolClasses` is replaced.
    public func makeSession(configuration: URLSessionConfiguration = .ephemeral) -> URLSession {
        let configuration = configuration.copy() as! URLSessionConfiguration
        configuration.protocolClasses = [FakeSessionRoutes.protocolClass(for: self)]
        return URLSession(configuration: configuration)
    }
}

/// Finds the fake a session's `URLProtocol` answers for.
///
/// `URLProtocol` gives a protocol class nothing but the request — no session, and on Linux not
/// even the session's additional headers — so a fake cannot be passed to it. Instead each fake
/// gets its own protocol class, `FakeURLProtocol<Slot>` specialised with a type that spells a
/// number, and that number finds the fake here. This is an address book, not a mock registry:
/// each entry is reachable only through its own fake's sessions, holds the fake weakly, and goes
/// away with it, so tests running in parallel never see each other's responses.
enum FakeSessionRoutes {
    private struct Table {
        var next: UInt64 = 0
        var fakes: [UInt64: Weak] = [:]
    }

    private struct Weak {
        weak var fake: FakeHTTPTransport?
    }

    private static let table = Locked(Table())

    static func protocolClass(for fake: FakeHTTPTransport) -> AnyClass {
        let number = table.withLock { table -> UInt64 in
            table.fakes = table.fakes.filter { $0.value.fake != nil }
            table.next += 1
            table.fakes[table.next] = Weak(fake: fake)
            return table.next
        }
        return protocolClass(slot: slotType(for: number))
    }

    static func fake(for number: UInt64) -> FakeHTTPTransport? {
        table.withLock { $0.fakes[number]?.fake }
    }

    private static func protocolClass<Slot: FakeSlot>(slot: Slot.Type) -> AnyClass {
        FakeURLProtocol<Slot>.self
    }

    /// A type whose ``FakeSlot/number`` is `number`: its binary digits, most significant first.
    private static func slotType(for number: UInt64) -> any FakeSlot.Type {
        var type: any FakeSlot.Type = SlotEnd.self
        let width = UInt64.bitWidth - number.leadingZeroBitCount
        for bit in stride(from: width - 1, through: 0, by: -1) {
            type = append(bit: (number >> UInt64(bit)) & 1 == 1, to: type)
        }
        return type
    }

    private static func append<Rest: FakeSlot>(bit: Bool, to rest: Rest.Type) -> any FakeSlot.Type {
        bit ? SlotOne<Rest>.self : SlotZero<Rest>.self
    }
}

/// A number spelled as a type, so each fake can have a protocol class of its own.
protocol FakeSlot {
    static var number: UInt64 { get }
}

enum SlotEnd: FakeSlot {
    static var number: UInt64 { 0 }
}

enum SlotZero<Rest: FakeSlot>: FakeSlot {
    static var number: UInt64 { Rest.number << 1 }
}

enum SlotOne<Rest: FakeSlot>: FakeSlot {
    static var number: UInt64 { Rest.number << 1 | 1 }
}
