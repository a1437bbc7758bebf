import Foundation

/// A token endpoint's successful answer (RFC 6749 §5.1), checked before anything uses it.
struct TokenResponse: Equatable {
    let accessToken: String
    let refreshToken: String?
    /// Seconds, from 0 to `Int32.max` (see ``JSONFields/seconds(_:)``).
    let expiresIn: Int?
    let scope: String?

    /// Parses and checks `data`. Reasons name the field and the problem, never the value of a token.
    init(parsing data: Data) throws(OAuthError) {
        let fields = try JSONFields(parsing: data, what: "token response")
        guard case .string(let accessToken)? = fields["access_token"] else {
            throw .invalidResponse(
                reason: fields["access_token"] == nil ? "it has no access_token" : "its access_token is not a string")
        }
        guard Self.isHeaderSafe(accessToken) else {
            throw .invalidResponse(
                reason: "its access token is empty or has characters a header cannot carry (such as CR or LF)")
        }
        switch fields["token_type"] {
        case .string(let type)? where type.lowercased() == "bearer": break
        case .string(let type)?:
            throw .invalidResponse(reason: "its token_type is \(OAuthError.printable(type)), not Bearer")
        case nil: throw .invalidResponse(reason: "it has no token_type")
        default: throw .invalidResponse(reason: "its token_type is not a string")
        }
        switch fields["refresh_token"] {
        case nil, .null?: refreshToken = nil
        case .string(let token)? where Self.isHeaderSafe(token): refreshToken = token
        default: throw .invalidResponse(reason: "its refresh token is empty, not a string, or has control characters")
        }
        expiresIn = try fields.seconds("expires_in")
        switch fields["scope"] {
        case nil, .null?: scope = nil
        case .string(let scope)?: self.scope = scope
        default: throw .invalidResponse(reason: "its scope is not a string")
        }
        self.accessToken = accessToken
    }

    /// Whether `token` is non-empty visible ASCII (RFC 6750's b64token and RFC 6749's VSCHAR
    /// both fit), so it can go in an `Authorization` header as it is.
    static func isHeaderSafe(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}

/// The top-level fields of a JSON object, each kept as the JSON type it had.
struct JSONFields {
    enum Value: Decodable, Equatable {
        case string(String)
        case integer(Int)
        /// A number that is not an integer `Int` can hold: fractional, or too large.
        case number
        case null
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let number = try? container.decode(Decimal.self) {
                let limit = Decimal(Int64(1) << 62)
                let whole =
                    number.isFinite && number.magnitude <= limit ? NSDecimalNumber(decimal: number).int64Value : nil
                if let whole, Decimal(whole) == number {
                    self = .integer(Int(whole))
                } else {
                    self = .number
                }
            } else if (try? container.decode(Double.self)) != nil {
                self = .number
            } else {
                self = .other
            }
        }
    }

    let values: [String: Value]

    init(parsing data: Data, what: String) throws(OAuthError) {
        do {
            values = try JSONDecoder().decode([String: Value].self, from: data)
        } catch {
            throw .invalidResponse(reason: "the \(what) is not a JSON object")
        }
    }

    subscript(key: String) -> Value? { values[key] }

    /// The duration in whole seconds under `key` (`expires_in`, `interval`), from 0 to 2³¹−1;
    /// `nil` when it is absent or `null`. A JSON integer, or a string of decimal digits: Azure AD
    /// v1 and others send `"expires_in": "3599"`. Anything else (a fraction, a word, a sign or
    /// a space in the string) fails with a reason that names the field, never its value.
    func seconds(_ key: String) throws(OAuthError) -> Int? {
        let whole: Int
        switch values[key] {
        case nil, .null?:
            return nil
        case .integer(let number)?:
            whole = number
        case .string(let text)?:
            let negative = text.hasPrefix("-")
            let digits = negative ? text.utf8.dropFirst() : text.utf8[...]
            guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                throw .invalidResponse(reason: "its \(key) is a string that is not a whole number of seconds")
            }
            // Only digits (and a leading minus): too many of them for an Int is out of range.
            whole = Int(text) ?? (negative ? -1 : .max)
        case .number?:
            throw .invalidResponse(reason: "its \(key) is not a whole number of seconds in range")
        default:
            throw .invalidResponse(reason: "its \(key) is not a number")
        }
        if whole < 0 { throw .invalidResponse(reason: "its \(key) is negative") }
        if whole > Int(Int32.max) { throw .invalidResponse(reason: "its \(key) is larger than 2147483647 seconds") }
        return whole
    }
}
