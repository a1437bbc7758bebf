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
    /// is on (see ``withStoredCookies(_:storage:)``).
    static func withStoredCookies(_ request: URLRequest, configuration: URLSessionConfiguration) -> URLRequest {
        guard configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage else { return request }
        return withStoredCookies(request, storage: storage)
    }

    /// `request` carrying the cookies `storage` holds for its URL, when the request's
    /// `httpShouldHandleCookies` is on: those RFC 6265 §5.4 lets it send, unexpired, `Secure` ones
    /// only over `https` or `wss`, and only where the cookie's path matches the URL's (corelibs'
    /// store matches the host alone), longer paths first. Cookies already in the request's
    /// `Cookie` header win over stored ones of the same name. A stored cookie holding CR, LF or
    /// NUL (which no response can set, but an app can store) is never sent.
    static func withStoredCookies(_ request: URLRequest, storage: HTTPCookieStorage) -> URLRequest {
        guard request.httpShouldHandleCookies, let url = request.url, let stored = storage.cookies(for: url),
            !stored.isEmpty
        else { return request }
        let now = Date()
        let secure = ["https", "wss"].contains(url.scheme?.lowercased())
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        let sendable =
            stored
            .filter { cookie in
                (cookie.expiresDate.map { $0 > now } ?? true) && (secure || !cookie.isSecure)
                    && pathMatches(path.isEmpty ? "/" : path, cookie: cookie.path)
                    // Added after the request's headers were checked: a cookie the app stored
                    // with CR, LF or NUL would split the request.
                    && HTTPToken.isValidFieldValue(cookie.name) && HTTPToken.isValidFieldValue(cookie.value)
            }
            .sorted { $0.path.count > $1.path.count }
        guard !sendable.isEmpty else { return request }
        var request = request
        let header = merged(
            request.value(forHTTPHeaderField: "Cookie"),
            with: sendable.map { ($0.name, $0.value) },
            replacing: false
        )
        request.setValue(header, forHTTPHeaderField: "Cookie")
        return request
    }

    /// Whether a request for `path` may carry a cookie of path `cookiePath` (RFC 6265 §5.1.4):
    /// the same path, or one below it.
    static func pathMatches(_ path: String, cookie cookiePath: String) -> Bool {
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/")
            || path.dropFirst(cookiePath.count).first == "/"
    }

    /// Keeps in `storage` the cookies of `setCookie` (each a `Set-Cookie` field value of a response
    /// from `url`), as URLSession keeps a response's cookies, following the storage's
    /// `cookieAcceptPolicy` (and its check that a cookie's domain is the URL's host or one above
    /// it); nothing when `request` turned `httpShouldHandleCookies` off. A cookie for a whole
    /// top-level domain is refused, fields past ``maximumCookiesPerResponse`` are ignored, and so is
    /// a field corelibs' parser would trap on (see ``corelibsReadsSafely(_:)``).
    static func store(
        _ setCookie: [String], from url: URL, for request: URLRequest, in storage: HTTPCookieStorage
    ) {
        guard request.httpShouldHandleCookies, !setCookie.isEmpty else { return }
        let now = Date()
        let host = url.host?.lowercased()
        // One field at a time: joined, the commas of their `Expires` dates would be ambiguous. At
        // most 50: corelibs' store sweeps every cookie it holds for each one it takes (and
        // `.shared` writes its file each time), so a response of thousands would cost seconds.
        let cookies = setCookie.prefix(maximumCookiesPerResponse).filter(corelibsReadsSafely).flatMap { field in
            let parsed = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": field], for: url)
            // A field folding several cookies (corelibs splits it at commas) keeps corelibs' reading:
            // its `Max-Age` could be any one's.
            let maximumAge = parsed.count == 1 ? maximumAge(in: field) : nil
            return parsed.compactMap { cookie -> HTTPCookie? in
                // A domain of one label (`Domain=com`) would reach every host under it: refused,
                // as curl refuses it (without a public suffix list, the least that can be done).
                let domain = cookie.domain.hasPrefix(".") ? String(cookie.domain.dropFirst()) : cookie.domain
                guard domain.contains(".") || domain == host else { return nil }
                guard let maximumAge else { return cookie }
                return expiring(cookie, at: now.addingTimeInterval(maximumAge))
            }
        }
        guard !cookies.isEmpty else { return }
        storage.setCookies(cookies, for: url, mainDocumentURL: nil)
    }

    /// Whether corelibs' `HTTPCookie` parser can read `field` without stopping the process: only
    /// when, in the cookie and in each attribute, the text before the first `=` is ASCII without
    /// CR and so is the character after it, as RFC 6265 §4.1.1 has it (a name is a token, a value
    /// ASCII). corelibs (6.3) finds a value by the UTF-16 offset of its `=` counted in characters,
    /// so an emoji or a combining mark there loses the value (`😀=1`) or indexes past the end and
    /// traps (`😀😀=1`, and `=\u{340}=`, whose `=` and combining mark are one character). Such a
    /// field is ignored, as a browser ignores a cookie it cannot parse. (corelibs starts another
    /// cookie at a comma only before an ASCII token and an `=`, so a comma starts nothing here.)
    static func corelibsReadsSafely(_ field: String) -> Bool {
        var inName = true
        var nameIsPlain = true
        var afterEquals = false
        for scalar in field.unicodeScalars {
            // CR LF is one character too (no field a transport reads holds one).
            let plain = scalar.isASCII && scalar != "\r"
            if afterEquals {
                guard plain else { return false }
                afterEquals = false
            }
            switch scalar {
            case ";":
                inName = true
                nameIsPlain = true
            case "=" where inName:
                guard nameIsPlain else { return false }
                inName = false
                afterEquals = true
            default:
                if inName, !plain { nameIsPlain = false }
            }
        }
        return true
    }

    /// 50: the `Set-Cookie` fields of one response a store takes; the rest are ignored. RFC 6265
    /// §6.1 asks a client to keep at least 50 cookies per domain, and a server needs far fewer in
    /// one answer.
    static let maximumCookiesPerResponse = 50

    /// The `Max-Age` of a `Set-Cookie` field, in seconds (RFC 6265 §5.2.2: the last one; zero or
    /// less expires the cookie at once), which corelibs' `HTTPCookie` ignores (it reads it for
    /// version 1 cookies alone, and then skips `Expires`), so that a server could not delete a
    /// cookie with `Max-Age=0`.
    static func maximumAge(in field: String) -> TimeInterval? {
        var found: TimeInterval?
        for attribute in field.split(separator: ";").dropFirst() {
            let parts = attribute.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "max-age" else {
                continue
            }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { continue }
            // Beyond Int, or negative: as far as it goes.
            let seconds = Int(digits).map(TimeInterval.init) ?? TimeInterval(Int.max)
            // Expired at once at zero or less; RFC 6265bis caps the rest at 400 days.
            found = value.hasPrefix("-") || seconds == 0 ? -1 : min(seconds, 400 * 24 * 3600)
        }
        return found
    }

    /// `cookie` expiring at `date`.
    private static func expiring(_ cookie: HTTPCookie, at date: Date) -> HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: cookie.name, .value: cookie.value, .domain: cookie.domain, .path: cookie.path, .expires: date,
        ]
        if cookie.isSecure { properties[.secure] = "TRUE" }
        if cookie.isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        return HTTPCookie(properties: properties)
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
