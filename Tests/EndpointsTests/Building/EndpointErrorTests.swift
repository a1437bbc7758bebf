import Foundation
import Testing

@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct EndpointErrorTests {
    struct Thrower: Encodable, Sendable {
        struct Refusal: Error, CustomStringConvertible {
            var description: String { "the body refused" }
        }
        func encode(to encoder: any Encoder) throws { throw Refusal() }
    }

    struct Failing: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        static let definition: Definition<Failing> = Definition(method: .post, path: "f")
        let body = Thrower()
    }

    struct Conflicting: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        static let definition: Definition<Conflicting> = Definition(
            method: .post,
            path: "f",
            parameters: [.formValue("a", value: "b")]
        )
        let body = ["json": true]
    }

    static let allCases: [EndpointError] = [
        .missingBaseURL(server: "BuildingServer", environment: "development"),
        .missingPathValue("userId"),
        .invalidPathValue("userId", value: ""),
        .invalidPathValue("userId", value: ".."),
        .invalidMethod("GET\r\n"),
        .invalidHeaderName("X-A\nB"),
        .invalidHeaderValue(name: "Authorization"),
        .invalidURL("http://[::1"),
        .conflictingFraming(header: "Content-Length"),
        .conflictingBody,
        .bodyEncodingFailed(UnderlyingError(Thrower.Refusal())),
        .unsupportedResponse("Image"),
    ]

    @Test func missingEnvironmentNamesServerAndEnvironment() {
        #expect(throws: EndpointError.missingBaseURL(server: "BuildingServer", environment: "development")) {
            try BuildingSegment("x").urlRequest(environment: .development)
        }
        let description = EndpointError.missingBaseURL(server: "BuildingServer", environment: "development").description
        #expect(description.contains("BuildingServer"))
        #expect(description.contains("development"))
    }

    @Test(arguments: allCases)
    func descriptionIsOneSentenceThatSaysWhatToFix(error: EndpointError) {
        let text = error.description
        #expect(text.hasSuffix("."))
        #expect(!text.dropLast().contains(". "), "more than one sentence: \(text)")
        #expect(!text.contains("\n") && !text.contains("\r"), "line break in: \(text.debugDescription)")
        #expect(text.first?.isUppercase == true || text.first == "'", "\(text)")
        // Whole words after the semicolon, so that `userId` does not count as "use".
        let advice = text.split(separator: ";").last ?? ""
        let words = Set(advice.split { !$0.isLetter }.map { $0.lowercased() })
        #expect(text.contains(";"), "no advice clause: \(text)")
        #expect(
            !words.isDisjoint(with: ["add", "use", "pass", "remove", "check", "request"]), "says nothing to do: \(text)"
        )
    }

    @Test func headerValuesNeverAppearInDescriptions() throws {
        let secret = "Bearer sk_live_secret"
        var endpoint = HeaderBuildingTests.WithHeaders()
        endpoint.headerComponents.trace = secret + "\n"
        #expect(throws: EndpointError.self) { try endpoint.urlRequest() }
        #expect(!EndpointError.invalidHeaderValue(name: "Authorization").description.contains("Bearer"))
        for error in Self.allCases {
            #expect(!error.description.contains(secret))
        }
    }

    @Test func bodyEncodingFailureWrapsTheUnderlyingError() {
        #expect(throws: EndpointError.bodyEncodingFailed(UnderlyingError(Thrower.Refusal()))) {
            try Failing().urlRequest()
        }
    }

    @Test func formParametersAndABodyConflict() {
        #expect(throws: EndpointError.conflictingBody) { try Conflicting().urlRequest() }
    }
}
