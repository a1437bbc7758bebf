// Path values: an encoded value decodes back to the input and never contains `/`, `?` or `#`,
// both from the encoder itself and in the URL an endpoint builds.
@testable import Endpoints
import Foundation
import FuzzDriver
import FuzzSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct SegmentEndpoint: Endpoint {
    typealias Server = FuzzServer
    typealias Response = Data
    struct PathComponents: Sendable {
        let first: String
        let second: String
    }
    static let definition: Definition<SegmentEndpoint> = Definition(
        path: "items/\(path: \.first)/sub/\(path: \.second)"
    )
    let pathComponents: PathComponents
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let first = input.string()
    let second = String(decoding: input.rest(), as: UTF8.self)

    for value in [first, second] {
        let encoded = PercentEncoding.encode(value, as: .component)
        require(!encoded.contains(where: { "/?#".contains($0) }), "\(value.debugDescription) → \(encoded)")
        require(identical(percentDecode(encoded[...], plusIsSpace: false), value), "\(value.debugDescription) → \(encoded)")
        require(identical(encoded.removingPercentEncoding, value), "Foundation decodes \(encoded) differently")
    }

    let endpoint = SegmentEndpoint(pathComponents: .init(first: first, second: second))
    let refused = [first, second].contains { $0.isEmpty || $0 == "." || $0 == ".." }
    let request: URLRequest
    do {
        request = try endpoint.urlRequest()
    } catch {
        guard case .invalidPathValue = error, refused else {
            require(false, "\(first.debugDescription), \(second.debugDescription) refused: \(error)")
            return 0
        }
        return 0
    }
    require(!refused, "\(first.debugDescription), \(second.debugDescription) accepted")
    guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
        require(false, "no URL components for \(request.url?.absoluteString ?? "nil")")
        return 0
    }
    // The base URL's query stays as it is, and the path has exactly its five segments.
    require(components.percentEncodedQuery == "api-version=2", "query became \(components.percentEncodedQuery ?? "nil")")
    require(components.host == "api.example.com", "host became \(components.host ?? "nil")")
    require(components.fragment == nil, "a fragment appeared")
    let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
    require(segments.count == 6, "path \(components.percentEncodedPath) has \(segments.count - 1) segments")
    require(
        segments.count == 6 && segments[0] == "" && segments[1] == "v1" && segments[2] == "items" && segments[4] == "sub",
        "path \(components.percentEncodedPath)"
    )
    require(identical(percentDecode(segments[3], plusIsSpace: false), first), "first segment \(segments[3])")
    require(identical(percentDecode(segments[5], plusIsSpace: false), second), "second segment \(segments[5])")
    return 0
}

/// The executable's entry point (see FuzzDriver.h).
@_cdecl("FuzzPathSegment_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    endpoints_fuzz_main(argc, argv)
}
