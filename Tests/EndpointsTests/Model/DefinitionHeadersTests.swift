import Testing

@testable import Endpoints

/// `Definition.headers` is internal since a user cannot read a `HeaderField`'s value; the builder's
/// rule is checked on it here, where the spelling of the winning name shows.
@Suite struct DefinitionHeadersTests {
    @Test func theLastHeaderWithANameWinsWithItsSpelling() {
        let headers = DefinitionBuilderTests.Repeated.definition.headers
        #expect(headers.count == 2)
        #expect(headers.keys.map(\.name).sorted() == ["ACCEPT", "x-mode"])
    }
}
