import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Formats dates as ISO 8601 without a formatter object: `ISO8601DateFormatter` is slow and not
/// `Sendable` everywhere, and a parameter only ever needs one fixed format.
enum ISO8601Text {
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = ""
        text.reserveCapacity(20)
        append(Int(parts.tm_year) + 1900, width: 4, to: &text)
        text.append("-")
        append(Int(parts.tm_mon) + 1, width: 2, to: &text)
        text.append("-")
        append(Int(parts.tm_mday), width: 2, to: &text)
        text.append("T")
        append(Int(parts.tm_hour), width: 2, to: &text)
        text.append(":")
        append(Int(parts.tm_min), width: 2, to: &text)
        text.append(":")
        append(Int(parts.tm_sec), width: 2, to: &text)
        text.append("Z")
        return text
    }

    private static func append(_ value: Int, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.utf8.count < width {
            text.append(String(repeating: "0", count: width - digits.utf8.count))
        }
        text.append(digits)
    }
}
