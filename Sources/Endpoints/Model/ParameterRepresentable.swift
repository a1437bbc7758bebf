import Foundation

/// A value that can be placed in a path segment, a query or form parameter, or a header.
///
/// Endpoints converts the value to a string with ``parameterValue`` and then encodes it for
/// where it goes (a path segment, a query item, a form field or a header), so conformances return
/// the plain, unencoded text. Returning `nil` omits the parameter or header; in a path it leaves
/// the segment out, as Endpoints 0.4 did.
///
/// The library conforms `String`, the integer types, `Double`, `Float`, `Bool`, `Date`
/// (ISO 8601, UTC), `TimeZone` (its identifier), `UUID`, `URL`, `Optional` and `Array` (repeated
/// query or form items).
/// Enums with a raw value, and types that are `LosslessStringConvertible` (their `description` is
/// the text), only need to declare the conformance:
///
/// ```swift
/// enum Sort: String, ParameterRepresentable { case newest, oldest }
///
/// struct Money: ParameterRepresentable {
///     let cents: Int
///     var parameterValue: String? { "\(cents / 100).\(cents % 100)" }
/// }
/// ```
public protocol ParameterRepresentable: Sendable {
    /// The value as plain text, or `nil` to leave the parameter out.
    var parameterValue: String? { get }

    /// Every value this parameter contributes. The default wraps ``parameterValue``;
    /// collections return one value per element so a query repeats the name.
    var parameterValues: [String] { get }
}

extension ParameterRepresentable {
    /// One value, or none when ``parameterValue`` is `nil`.
    public var parameterValues: [String] {
        guard let value = parameterValue else { return [] }
        return [value]
    }
}

extension ParameterRepresentable where Self: RawRepresentable, RawValue: ParameterRepresentable {
    /// The raw value's text, so `enum Kind: String, ParameterRepresentable` needs no code.
    public var parameterValue: String? { rawValue.parameterValue }
}

extension ParameterRepresentable where Self: LosslessStringConvertible {
    /// The value's `description`: the text that reads back as the same value, so `String` and
    /// `Substring` are themselves, integers their decimal text, `Double` and `Float` the shortest
    /// text that reads back as the same number (`1.5`, `0.1`, `100.0`), and `Bool` `true` or `false`.
    public var parameterValue: String? { description }
}

extension ParameterRepresentable
where Self: RawRepresentable & LosslessStringConvertible, RawValue: ParameterRepresentable {
    /// The raw value's text, for a type that is both raw-representable and lossless-string-convertible
    /// (without this, neither of the two defaults above would be chosen).
    public var parameterValue: String? { rawValue.parameterValue }
}

// The standard library's text types, integers, floating-point numbers and `Bool` use the
// `LosslessStringConvertible` default above.
extension String: ParameterRepresentable {}
extension Substring: ParameterRepresentable {}
extension Int: ParameterRepresentable {}
extension Int8: ParameterRepresentable {}
extension Int16: ParameterRepresentable {}
extension Int32: ParameterRepresentable {}
extension Int64: ParameterRepresentable {}
extension UInt: ParameterRepresentable {}
extension UInt8: ParameterRepresentable {}
extension UInt16: ParameterRepresentable {}
extension UInt32: ParameterRepresentable {}
extension UInt64: ParameterRepresentable {}
extension Double: ParameterRepresentable {}
extension Float: ParameterRepresentable {}
extension Bool: ParameterRepresentable {}

extension UUID: ParameterRepresentable {
    /// The canonical upper-case text, e.g. `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    public var parameterValue: String? { uuidString }
}

extension URL: ParameterRepresentable {
    /// The absolute string; it is percent-encoded again where it is placed.
    public var parameterValue: String? { absoluteString }
}

extension Date: ParameterRepresentable {
    /// ISO 8601 in UTC with whole seconds, e.g. `2026-11-29T11:24:18Z`.
    public var parameterValue: String? { ISO8601Text.format(self) }
}

extension TimeZone: ParameterRepresentable {
    /// The identifier, e.g. `America/Los_Angeles`, as in Endpoints 0.4.
    public var parameterValue: String? { identifier }
}

extension Optional: ParameterRepresentable where Wrapped: ParameterRepresentable {
    /// The wrapped value's text, or `nil`, which omits the parameter.
    public var parameterValue: String? {
        switch self {
        case .some(let value): value.parameterValue
        case .none: nil
        }
    }

    /// The wrapped value's values, or none.
    public var parameterValues: [String] {
        switch self {
        case .some(let value): value.parameterValues
        case .none: []
        }
    }
}

extension Array: ParameterRepresentable where Element: ParameterRepresentable {
    /// The elements joined with commas (used where one value is needed, such as a header).
    public var parameterValue: String? {
        let values = parameterValues
        return values.isEmpty ? nil : values.joined(separator: ",")
    }

    /// One value per element: a query or form parameter repeats its name, `ids=1&ids=2`.
    public var parameterValues: [String] { flatMap(\.parameterValues) }
}
