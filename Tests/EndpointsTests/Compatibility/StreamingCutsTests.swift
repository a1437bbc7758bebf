import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Spellings that a smaller surface replaced, kept as deprecated forwarders in
// Compatibility/Streaming+Cuts.swift: each still compiles (with a warning) and reads as before.
@Suite struct StreamingCutsTests {
    @available(*, deprecated)
    @Test func theNamedDefaultReconnectionIsTheDefaultPolicy() {
        #expect(EventStreamReconnection.default == EventStreamReconnection())
    }
}
