import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The checked, split-up parts of a request, and how they become a `URLRequest`: what an
/// ``Endpoint``'s ``Definition`` and an ``AdHocRequest`` share, so both are built by one copy of
/// the encoding and validation rules.
///
/// `P` is the type the query and form parameters read, `H` the type the headers read.
///
/// A class, so that a copy is one retain: every request reads its definition's shape.
final class RequestShape<P, H>: Sendable {
    let method: Method
    let queryParameters: [Parameter<P>]
    let formParameters: [Parameter<P>]
    /// The headers, each name once, in the order they are set.
    let headerList: [HeaderEntry<H>]
    /// The Content-Type header's name as written, when the headers set one.
    let contentTypeName: String?
    /// `URLRequest.timeoutInterval`, or `nil` for the session's.
    let timeout: Double?
    /// What makes every request of this shape fail, found once here.
    let problem: EndpointError?
    /// Whether there are query parameters, form parameters, headers: asked of the arrays on each
    /// request, `isEmpty` looks up their metadata (unspecialized generic code), 0.2 µs a request.
    let hasQuery: Bool, hasForm: Bool, hasHeaders: Bool

    /// Splits and checks the parts. `hasBody` says whether an encoded body goes with them.
    convenience init(
        method: Method,
        parameters: [Parameter<P>],
        headers: [Header: HeaderValue<H>],
        hasBody: Bool,
        timeout: Double?
    ) {
        self.init(
            method: method,
            parameters: parameters,
            distinctHeaders: headers.map { HeaderEntry(name: $0.key, field: $0.value) }.sorted {
                $0.name.name < $1.name.name
            },
            hasBody: hasBody,
            timeout: timeout
        )
    }

    /// Splits and checks the parts, with headers written as a list where **the last one with a name
    /// wins**, spelling included (what ``ContentBuilder`` promises).
    convenience init(
        method: Method,
        parameters: [Parameter<P>],
        headerList entries: [HeaderEntry<H>],
        hasBody: Bool,
        timeout: Double?
    ) {
        self.init(
            method: method,
            parameters: parameters,
            distinctHeaders: Self.lastWins(entries),
            hasBody: hasBody,
            timeout: timeout
        )
    }

    private init(
        method: Method,
        parameters: [Parameter<P>],
        distinctHeaders headers: [HeaderEntry<H>],
        hasBody: Bool,
        timeout: Double?
    ) {
        self.method = method
        self.timeout = timeout
        if parameters.allSatisfy({ $0.location == .query }) {
            // The common case keeps the array it was given: nothing to split, nothing to allocate.
            self.queryParameters = parameters
            self.formParameters = []
        } else {
            self.queryParameters = parameters.filter { $0.location == .query }
            self.formParameters = parameters.filter { $0.location == .form }
        }
        self.headerList = headers
        hasQuery = !queryParameters.isEmpty
        hasForm = !formParameters.isEmpty
        hasHeaders = !headers.isEmpty
        self.contentTypeName = headers.first { $0.name == .contentType }?.name.name
        if !method.isValidToken {
            problem = .invalidMethod(method.rawValue)
        } else if let bad = headers.first(where: { !$0.name.isToken }) {
            problem = .invalidHeaderName(bad.name.name)
        } else if !formParameters.isEmpty && hasBody {
            problem = .conflictingBody
        } else if let timeout, !(timeout > 0) {
            problem = .invalidTimeout(timeout)
        } else {
            problem = nil
        }
    }

    /// `entries` with each name kept once: the last entry with that name, where it was written.
    static func lastWins(_ entries: [HeaderEntry<H>]) -> [HeaderEntry<H>] {
        let distinct = entries.indices.allSatisfy { index in
            !entries[..<index].contains { $0.name == entries[index].name }
        }
        if distinct { return entries }
        var kept: [HeaderEntry<H>] = []
        kept.reserveCapacity(entries.count)
        for entry in entries {
            // A linear scan: requests have a handful of headers, and a dictionary costs more.
            kept.removeAll { $0.name == entry.name }
            kept.append(entry)
        }
        return kept
    }

    /// `entries` as a dictionary, the last entry with a name winning, spelling included.
    static func lastWinsDictionary(_ entries: [HeaderEntry<H>]) -> [Header: HeaderValue<H>] {
        var headers: [Header: HeaderValue<H>] = [:]
        for entry in lastWins(entries) { headers[entry.name] = entry.field }
        return headers
    }

    /// The URL for `text` (the base URL and the path) with the query parameters appended.
    func url(
        _ text: String,
        parameterComponents: P,
        queryEncoding strategy: QueryEncodingStrategy
    ) throws(EndpointError) -> URL {
        var text = text
        appendQuery(parameterComponents, strategy: strategy, to: &text)
        guard let url = URL(string: text) else { throw .invalidURL(text) }
        return url
    }

    /// The request for `url`, with the headers and the body: the form fields, or what `body`
    /// encodes (`nil` for none) with its content type.
    func urlRequest(
        url: URL,
        parameterComponents: P,
        headerComponents: H,
        body: () throws(EndpointError) -> (data: Data, contentType: String?)?
    ) throws(EndpointError) -> URLRequest {
        var request = URLRequest(url: url)
        // GET is URLRequest's default; setting it costs a bridge to NSURLRequest on Linux.
        if method != .get { request.httpMethod = method.rawValue }
        if let timeout { request.timeoutInterval = timeout }

        // One assignment of all fields: each `setValue` call copies the request's storage on Linux.
        var fields: [String: String] = [:]
        // By index: iterating the array would look up the metadata of `[HeaderEntry<H>]` and its
        // iterator on each request (unspecialized generic code).
        for index in hasHeaders ? 0..<headerList.count : 0..<0 {
            let entry = headerList[index]
            guard let value = entry.field.value(headerComponents) else { continue }
            let name = entry.name.name
            guard HTTPToken.isValidFieldValue(value) else { throw .invalidHeaderValue(name: name) }
            fields[name] = value
        }
        // A Content-Type header whose value is nil leaves the body's own type in place.
        let setsContentType = contentTypeName.map { fields[$0] != nil } ?? false

        if hasForm {
            request.httpBody = formBody(parameterComponents)
            if !setsContentType {
                fields["Content-Type"] = "application/x-www-form-urlencoded"
            }
        } else if let (data, contentType) = try body() {
            request.httpBody = data
            if !setsContentType, let contentType {
                fields["Content-Type"] = contentType
            }
        }
        if !fields.isEmpty { request.allHTTPHeaderFields = fields }
        return request
    }

    private func appendQuery(_ components: P, strategy: QueryEncodingStrategy, to text: inout String) {
        guard hasQuery else { return }
        // `utf8.contains`, not `contains("?")`: with Foundation imported, that one is NSString's search.
        var separator: Character = text.utf8.contains(UInt8(ascii: "?")) ? "&" : "?"
        for parameter in queryParameters {
            for value in parameter.values(components) {
                text.append(separator)
                separator = "&"
                switch strategy {
                case .default:
                    text.append(PercentEncoding.encode(parameter.name, as: .component))
                    text.append("=")
                    text.append(PercentEncoding.encode(value, as: .component))
                case .formURLEncoded:
                    text.append(PercentEncoding.encode(parameter.name, as: .form))
                    text.append("=")
                    text.append(PercentEncoding.encode(value, as: .form))
                case .custom(let encode):
                    let (name, value) = encode(URLQueryItem(name: parameter.name, value: value))
                    text.append(name)
                    if let value {
                        text.append("=")
                        text.append(value)
                    }
                }
            }
        }
    }

    private func formBody(_ components: P) -> Data {
        var text = ""
        for parameter in formParameters {
            for value in parameter.values(components) {
                if !text.isEmpty { text.append("&") }
                text.append(PercentEncoding.encode(parameter.name, as: .form))
                text.append("=")
                text.append(PercentEncoding.encode(value, as: .form))
            }
        }
        return Data(text.utf8)
    }
}

/// The URL of an endpoint whose path and query are the same for every request, remembered for
/// the base URL it was last built against: parsing it again costs more than the rest of building
/// the request (about 5 µs on Linux).
final class FixedURLMemo: Sendable {
    private let last = Locked<(base: URL, url: URL)?>(nil)

    /// The URL built after `base`, if it was the last one.
    func url(after base: URL) -> URL? {
        last.withLock { last in last.flatMap { $0.base == base ? $0.url : nil } }
    }

    func remember(_ url: URL, after base: URL) {
        last.withLock { $0 = (base, url) }
    }
}

/// A base URL as paths are appended to it: its text up to the query, without a trailing `/`, and
/// its query (`?api-version=2`), which goes after the path.
struct BaseURLText: Sendable {
    let beforeQuery: String
    let query: Substring

    init(_ baseURL: URL) {
        var text = baseURL.absoluteString
        var query: Substring = ""
        if let mark = text.utf8.firstIndex(of: UInt8(ascii: "?")) {
            query = text[mark...]
            text = String(text[..<mark])
        }
        if text.utf8.last == UInt8(ascii: "/") { text.removeLast() }
        beforeQuery = text
        self.query = query
    }
}

extension PathTemplate {
    /// This path, rendered for `components`, after `baseURL`: the base's own path is kept, and a query
    /// the base URL carries (`?api-version=2`) goes after the path.
    func urlText(after baseURL: URL, components: T) throws(EndpointError) -> String {
        try urlText(after: BaseURLText(baseURL), components: components)
    }

    /// This path, rendered for `components`, after a base URL split once.
    func urlText(after base: BaseURLText, components: T) throws(EndpointError) -> String {
        var text = base.beforeQuery
        var rendered = ""
        try render(components, into: &rendered)
        if !rendered.isEmpty {
            if rendered.utf8.first != UInt8(ascii: "/") { text.append("/") }
            text.append(rendered)
        }
        text.append(contentsOf: base.query)
        return text
    }
}

extension EncoderType {
    /// `body` encoded by this encoder, and the content type it names.
    func encodeBody<B: Encodable>(_ body: B) throws(EndpointError) -> (data: Data, contentType: String?) {
        do {
            return (try encode(body), contentType)
        } catch {
            throw .bodyEncodingFailed(UnderlyingError(error))
        }
    }
}
