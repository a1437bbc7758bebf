// Query and form encoding: a standard parser recovers every name and value exactly. Foundation's
// URLComponents reads the query (RFC 3986, `+` is a plus); the form decoder below reads
// `application/x-www-form-urlencoded` as the WHATWG URL standard does (`+` is a space).
@testable import Endpoints
import Foundation
import FuzzDriver
import FuzzSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct QueryEndpoint: Endpoint {
    typealias Server = FuzzServer
    typealias Response = Data
    struct ParameterComponents: Sendable {
        let values: [String]
        let optional: String?
    }
    static let definition: Definition<QueryEndpoint> = Definition(
        path: "search",
        parameters: [.query("q", path: \.values), .query("o", path: \.optional), .queryValue("fixed", value: "a b")]
    )
    let parameterComponents: ParameterComponents
}

/// The same parameters written with the form strategy (`+` for a space).
struct FormQueryEndpoint: Endpoint {
    typealias Server = FuzzServer
    typealias Response = Data
    typealias ParameterComponents = QueryEndpoint.ParameterComponents
    static let definition: Definition<FormQueryEndpoint> = Definition(
        path: "search",
        parameters: [.query("q", path: \.values), .query("o", path: \.optional), .queryValue("fixed", value: "a b")]
    )
    static var queryEncodingStrategy: QueryEncodingStrategy { .formURLEncoded }
    let parameterComponents: ParameterComponents
}

/// The same parameters as a form body.
struct FormBodyEndpoint: Endpoint {
    typealias Server = FuzzServer
    typealias Response = Data
    typealias ParameterComponents = QueryEndpoint.ParameterComponents
    static let definition: Definition<FormBodyEndpoint> = Definition(
        method: .post,
        path: "search",
        parameters: [.form("q", path: \.values), .form("o", path: \.optional), .formValue("fixed", value: "a b")]
    )
    let parameterComponents: ParameterComponents
}

/// `application/x-www-form-urlencoded` parsing (WHATWG URL §5.1), written for this target:
/// split on `&`, then on the first `=`, then `+` → space and percent-decoding.
func decodeForm(_ text: Substring) -> [(String, String)]? {
    guard !text.isEmpty else { return [] }
    var pairs: [(String, String)] = []
    for item in text.split(separator: "&", omittingEmptySubsequences: false) {
        let equals = item.firstIndex(of: "=")
        let name = equals.map { item[..<$0] } ?? item
        let value = equals.map { item[item.index(after: $0)...] } ?? ""
        guard let name = percentDecode(name, plusIsSpace: true), let value = percentDecode(value, plusIsSpace: true)
        else { return nil }
        pairs.append((name, value))
    }
    return pairs
}

func same(_ lhs: [(String, String)]?, _ rhs: [(String, String)]) -> Bool {
    guard let lhs, lhs.count == rhs.count else { return false }
    return zip(lhs, rhs).allSatisfy { identical($0.0, $1.0) && identical($0.1, $1.1) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let flags = input.byte()
    var values: [String] = []
    for _ in 0..<(flags & 3) { values.append(input.string()) }
    let optional: String? = flags & 4 == 0 ? nil : input.string()
    let name = input.string()
    let value = String(decoding: input.rest(), as: UTF8.self)

    // The encoder alone, for names and values alike.
    let pairs = [(name, value), (value, name)]
    for kind in [PercentEncoding.Kind.component, .form] {
        let query = pairs.map { PercentEncoding.encode($0.0, as: kind) + "=" + PercentEncoding.encode($0.1, as: kind) }
            .joined(separator: "&")
        require(!query.contains("#"), "\(query) has a #")
        require(same(decodeForm(query[...]), pairs), "form decoder reads \(query) differently")
        if kind == .component {
            var components = URLComponents()
            components.percentEncodedQuery = query
            let items = components.queryItems?.map { ($0.name, $0.value ?? "") }
            require(same(items, pairs), "URLComponents reads \(query) as \(String(describing: items))")
        }
    }

    // Through endpoints: the built query and body read back as the parameters, in order.
    let components = QueryEndpoint.ParameterComponents(values: values, optional: optional)
    var expected = values.map { ("q", $0) }
    if let optional { expected.append(("o", optional)) }
    expected.append(("fixed", "a b"))
    do {
        let url = try QueryEndpoint(parameterComponents: components).urlRequest().url
        let built = url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }
        require(built?.path == "/v1/search", "path became \(built?.path ?? "nil")")
        let items = built?.queryItems?.map { ($0.name, $0.value ?? "") }
        require(same(items, [("api-version", "2")] + expected), "query \(url?.absoluteString ?? "nil")")

        let formURL = try FormQueryEndpoint(parameterComponents: components).urlRequest().url
        let formQuery = formURL.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }?.percentEncodedQuery
        require(
            same(formQuery.flatMap { decodeForm($0[...]) }, [("api-version", "2")] + expected),
            "form query \(formURL?.absoluteString ?? "nil")"
        )

        let request = try FormBodyEndpoint(parameterComponents: components).urlRequest()
        let body = request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? ""
        require(same(decodeForm(body[...]), expected), "form body \(body)")
        require(
            request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded",
            "form content type"
        )
    } catch {
        require(false, "building failed: \(error)")
    }
    return 0
}

/// The executable's entry point (see FuzzDriver.h).
@_cdecl("FuzzQueryForm_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    endpoints_fuzz_main(argc, argv)
}
