import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one `Cookie` request header (RFC 6265 §5.4): `name=value` pairs joined with `"; "`.
enum CookieHeader {
    /// `header` with `cookies` merged in, in order: the pairs already there keep their place; a
    /// cookie whose name is already there replaces it when `replacing`, and is skipped otherwise;
    /// the others are appended. Empty pairs are dropped.
    static func merged(_ header: String?, with cookies: [(name: String, value: String)], replacing: Bool) -> String {
        var pairs: [(name: String, text: String)] = []
        for part in (header ?? "").split(separator: ";") {
            let text = part.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            pairs.append((name.trimmingCharacters(in: .whitespaces), text))
        }
        for cookie in cookies {
            let text = "\(cookie.name)=\(cookie.value)"
            if let index = pairs.firstIndex(where: { $0.name == cookie.name }) {
                if replacing {
                    pairs.remove(at: index)
                    pairs.append((cookie.name, text))
                }
            } else {
                pairs.append((cookie.name, text))
            }
        }
        return pairs.map(\.text).joined(separator: "; ")
    }

    /// `request` carrying the cookies `configuration`'s store holds for its URL, as URLSession
    /// adds them to a request it sends itself: only when the configuration's `httpShouldSetCookies`
    /// and the request's `httpShouldHandleCookies` are on. Cookies already in the request's `Cookie`
    /// header win over stored ones of the same name.
    static func withStoredCookies(_ request: URLRequest, configuration: URLSessionConfiguration) -> URLRequest {
        guard configuration.httpShouldSetCookies, request.httpShouldHandleCookies, let url = request.url,
            let stored = configuration.httpCookieStorage?.cookies(for: url), !stored.isEmpty
        else { return request }
        var request = request
        let header = merged(
            request.value(forHTTPHeaderField: "Cookie"),
            with: stored.map { ($0.name, $0.value) },
            replacing: false
        )
        request.setValue(header, forHTTPHeaderField: "Cookie")
        return request
    }

    /// On Linux, why `request` cannot be sent through `session` as it is: it turned
    /// `httpShouldHandleCookies` off and carries its own `Cookie` header (as ``CookieAuth`` does),
    /// but corelibs ignores that flag and replaces the header with the store's cookies whenever the
    /// session's configuration sets cookies and its store holds any for the URL. `nil` when the
    /// header will arrive as it is, and always on Apple platforms, which honour the flag.
    static func storeConflict(for request: URLRequest, session: URLSession) -> AuthenticationError? {
        #if canImport(FoundationNetworking)
            // The cheap checks first: reading a session's configuration copies it on Linux.
            guard !request.httpShouldHandleCookies, request.value(forHTTPHeaderField: "Cookie") != nil else {
                return nil
            }
            let configuration = session.configuration
            guard configuration.httpShouldSetCookies, let url = request.url,
                configuration.httpCookieStorage?.cookies(for: url)?.isEmpty == false
            else { return nil }
            return .invalidCredentials(
                reason: "the session's cookie store holds cookies for \(url.host ?? "this host"), and URLSession on "
                    + "Linux would replace the request's Cookie header (and the CookieAuth cookie in it) with them; "
                    + "send it with a session whose configuration has httpShouldSetCookies = false."
            )
        #else
            return nil
        #endif
    }
}
