import Endpoints
import Foundation
import Testing

/// A type that is only `LosslessStringConvertible`: the conformance needs no code.
private struct Slug: LosslessStringConvertible, ParameterRepresentable {
    let text: String
    init?(_ description: String) { text = description }
    var description: String { text }
}

/// Both raw-representable and lossless-string-convertible: the raw value wins, as it did before
/// `LosslessStringConvertible` had a default.
private struct UserID: RawRepresentable, LosslessStringConvertible, ParameterRepresentable {
    let rawValue: Int
    init(rawValue: Int) { self.rawValue = rawValue }
    init?(_ description: String) { nil }
    var description: String { "user #\(rawValue)" }
}

@Suite struct ParameterRepresentableTests {
    /// The standard library's types share one default (their `description`); the text is the one
    /// each type's own `parameterValue` returned before, byte for byte.
    @Test func standardLibraryValuesKeepTheirText() {
        let cases: [(any ParameterRepresentable, String)] = [
            ("a b/é", "a b/é"),
            ("hello world".dropFirst(6), "world"),
            (Int.min, "-9223372036854775808"),
            (Int8.min, "-128"),
            (Int16.max, "32767"),
            (Int32.min, "-2147483648"),
            (Int64.max, "9223372036854775807"),
            (UInt.max, "18446744073709551615"),
            (UInt8.max, "255"),
            (UInt16.max, "65535"),
            (UInt32.max, "4294967295"),
            (UInt64.max, "18446744073709551615"),
            (0.1, "0.1"),
            (1.5, "1.5"),
            (100.0, "100.0"),
            (-0.0, "-0.0"),
            (1e-7, "1e-07"),
            (1e16, "1e+16"),
            (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
            (Double.infinity, "inf"),
            (Double.nan, "nan"),
            (Float(0.1), "0.1"),
            (Float(16_777_216), "16777216.0"),
            (true, "true"),
            (false, "false"),
        ]
        for (value, text) in cases {
            #expect(value.parameterValue == text, "\(type(of: value)) \(value)")
            #expect(value.parameterValues == [text])
        }
    }

    @Test func aLosslessStringConvertibleTypeNeedsNoCode() {
        #expect(Slug("hello-world")?.parameterValue == "hello-world")
    }

    @Test func aRawValueWinsOverTheDescription() {
        #expect(UserID(rawValue: 42).parameterValue == "42")
    }
}
