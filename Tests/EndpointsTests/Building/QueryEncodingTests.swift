import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct QueryEncodingTests {
    private func query(_ value: String) throws -> String? {
        try BuildingQuery(value).urlRequest().url?.query
    }

    @Test(arguments: [
        ("+", "q=%2B"), ("&", "q=%26"), ("=", "q=%3D"), (" ", "q=%20"), ("a=b&c=d", "q=a%3Db%26c%3Dd"),
        ("%41", "q=%2541"), ("é", "q=%C3%A9"), ("#", "q=%23"), ("?", "q=%3F"), (";", "q=%3B"),
        ("~-._", "q=~-._"),
    ])
    func reservedCharactersAreEscaped(value: String, expected: String) throws {
        #expect(try query(value) == expected)
    }

    @Test func foundationParsesBackEveryHostileString() throws {
        for value in hostileStrings {
            let url = try #require(try BuildingQuery(value).urlRequest().url)
            let items = URLComponents(string: url.absoluteString)?.queryItems
            #expect(items?.count == 1, "\(value.debugDescription) was split: \(url.absoluteString)")
            #expect(items?.first?.name == "q")
            #expect(items?.first?.value == value, "\(value.debugDescription) came back changed")
        }
    }

    @Test func aServerDecodesEveryHostileStringUnchanged() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for value in hostileStrings {
            let request = try BuildingQuery(value).urlRequest(environment: .local)
            let received = try await sendToTestServer(request, server: server)
            #expect(received.rawPath == "/echo")
            let items = received.queryItems
            #expect(items.count == 1, "\(value.debugDescription) arrived as \(received.rawQuery ?? "nil")")
            #expect(items.first?.name == "q")
            #expect(items.first?.value == value, "\(value.debugDescription) arrived as \(received.rawQuery ?? "nil")")
        }
    }

    struct FormStyle: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        static let definition: Definition<FormStyle> = Definition(
            path: "s",
            parameters: [.queryValue("a b", value: "c d+e&f")]
        )
        static var queryEncodingStrategy: QueryEncodingStrategy { .formURLEncoded }
    }

    struct Custom: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        static let definition: Definition<Custom> = Definition(
            path: "s",
            parameters: [.queryValue("filter", value: "a,b"), .queryValue("flag", value: "x")]
        )
        static var queryEncodingStrategy: QueryEncodingStrategy {
            .custom { item in
                (name: item.name.uppercased(), value: item.name == "flag" ? nil : item.value)
            }
        }
    }

    @Test func formURLEncodedStrategyWritesSpaceAsPlus() throws {
        let url = try FormStyle().urlRequest().url
        #expect(url?.query == "a+b=c+d%2Be%26f")
        let items = formDecode(url?.query ?? "")
        #expect(items.map(\.name) == ["a b"])
        #expect(items.map(\.value) == ["c d+e&f"])
    }

    @Test func customStrategyWritesWhatItReturns() throws {
        #expect(try Custom().urlRequest().url?.query == "FILTER=a,b&FLAG")
    }
}

@Suite struct ParameterValueTests {
    enum Sort: String, ParameterRepresentable { case newest, oldest }

    struct Money: ParameterRepresentable {
        let cents: Int
        var parameterValue: String? { "\(cents / 100).\(cents % 100)" }
    }

    struct Components: Sendable {
        var text: String? = "x"
        var ids: [Int] = [1, 2, 3]
        var date = Date(timeIntervalSince1970: 1_795_000_000)
        var id = UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!
        var flag = true
        var ratio = 0.1
        var sort = Sort.oldest
        var price = Money(cents: 1250)
        var small: Int8 = -5
        var big: UInt64 = .max
    }

    struct AllTypes: Endpoint {
        typealias Server = BuildingServer
        typealias Response = Data
        typealias ParameterComponents = ParameterValueTests.Components
        static let definition: Definition<AllTypes> = Definition(
            path: "s",
            parameters: [
                .query("text", path: \.text), .query("ids", path: \.ids), .query("date", path: \.date),
                .query("id", path: \.id), .query("flag", path: \.flag), .query("ratio", path: \.ratio),
                .query("sort", path: \.sort), .query("price", path: \.price), .query("small", path: \.small),
                .query("big", path: \.big), .queryValue("none", value: String?.none),
            ]
        )
        var parameterComponents = Components()
    }

    @Test func valuesConvertAsDocumented() throws {
        let query = try AllTypes().urlRequest().url?.query
        #expect(
            query
                == "text=x&ids=1&ids=2&ids=3&date=2026-11-18T11%3A06%3A40Z&id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
                + "&flag=true&ratio=0.1&sort=oldest&price=12.50&small=-5&big=18446744073709551615"
        )
    }

    @Test func nilOptionalLeavesTheItemOut() throws {
        var endpoint = AllTypes()
        endpoint.parameterComponents.text = nil
        endpoint.parameterComponents.ids = []
        let items =
            URLComponents(url: try #require(try endpoint.urlRequest().url), resolvingAgainstBaseURL: false)?
            .queryItems ?? []
        #expect(!items.contains { $0.name == "text" || $0.name == "ids" || $0.name == "none" })
        #expect(items.first?.name == "date")
    }

    @Test func datesAreISO8601InUTC() {
        #expect(Date(timeIntervalSince1970: 0).parameterValue == "1970-01-01T00:00:00Z")
        #expect(Date(timeIntervalSince1970: 951_782_400.9).parameterValue == "2000-02-29T00:00:00Z")
        #expect(Date(timeIntervalSince1970: -1).parameterValue == "1969-12-31T23:59:59Z")
    }

    @Test func scalarsConvertToTheirText() {
        #expect(false.parameterValue == "false")
        #expect(1.5.parameterValue == "1.5")
        #expect(Sort.newest.parameterValue == "newest")
        #expect(Money(cents: 1999).parameterValues == ["19.99"])
        #expect([Sort.newest, .oldest].parameterValue == "newest,oldest")
        #expect(Int?.none.parameterValues == [])
    }
}
