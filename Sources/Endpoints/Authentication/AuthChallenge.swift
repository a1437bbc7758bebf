/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1), such as
/// `Digest realm="api", nonce="7ypf", qop="auth"`: its scheme and its parameters.
///
/// A field may hold several challenges, and several fields arrive joined with commas, so commas
/// separate both parameters and challenges: a token not followed by `=` starts the next challenge.
/// A challenge with a token68 (`Negotiate YIIG…`) has no parameters; text that fits neither form
/// is skipped to the next comma.
struct AuthChallenge: Equatable, Sendable {
    /// The scheme as sent; compare it without case.
    var scheme: String
    /// The parameters by lower-cased name, unquoted; the first of a name wins.
    var parameters: [String: String]

    /// Every challenge in `field`, in order.
    static func parse(_ field: String) -> [AuthChallenge] {
        var scanner = FieldScanner(field)
        var challenges: [AuthChallenge] = []
        while true {
            skipSeparators(&scanner)
            guard scanner.current != nil else { return challenges }
            let scheme = scanner.read(until: Self.tokenEnds)
            guard !scheme.isEmpty, scheme.utf8.allSatisfy(HTTPToken.isTokenByte) else {
                // Not a challenge: on to the next comma.
                _ = scanner.read(until: ",")
                scanner.advance()
                continue
            }
            scanner.skipWhitespace()
            var probe = scanner
            let word = probe.read(until: tokenEnds)
            probe.skipWhitespace()
            if !word.isEmpty, probe.current != "=" || probe.next == "=" {
                // A token68 (`Negotiate YIIG…`, `Basic dXNlcg==`): no parameters.
                _ = scanner.read(until: ",")
                challenges.append(AuthChallenge(scheme: scheme, parameters: [:]))
                continue
            }
            challenges.append(AuthChallenge(scheme: scheme, parameters: readParameters(&scanner)))
        }
    }

    /// The parameters of a field that is only a list of them, such as `Authentication-Info`
    /// (RFC 9110 §11.6.3).
    static func parameters(of field: String) -> [String: String] {
        var scanner = FieldScanner(field)
        return readParameters(&scanner)
    }

    /// What ends a token here: the scalars that may follow one.
    private static let tokenEnds = " \t,=\""

    private static func skipSeparators(_ scanner: inout FieldScanner) {
        while let scalar = scanner.current, scalar == " " || scalar == "\t" || scalar == "," { scanner.advance() }
    }

    /// `name=value` pairs separated by commas, up to a token that is not followed by `=` (the
    /// next challenge's scheme, where the scanner is left) or the end.
    private static func readParameters(_ scanner: inout FieldScanner) -> [String: String] {
        var parameters: [String: String] = [:]
        while true {
            skipSeparators(&scanner)
            let saved = scanner
            let name = scanner.read(until: tokenEnds)
            scanner.skipWhitespace()
            guard !name.isEmpty, scanner.current == "=" else {
                // The next challenge, or the end.
                scanner = saved
                return parameters
            }
            scanner.advance()
            scanner.skipWhitespace()
            let value = scanner.current == "\"" ? scanner.readQuoted() : scanner.read(until: " \t,")
            let key = name.lowercased()
            if parameters[key] == nil { parameters[key] = value }
        }
    }
}
