/// Percent-encoding over UTF-8 bytes, with lookup tables instead of Foundation's `CharacterSet`
/// (which is slow on Linux and, in `urlQueryAllowed`, leaves `+`, `&` and `=` unencoded).
///
/// Every kind keeps only RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`) as they are and
/// writes every other byte as `%XX` with upper-case hex. A value can therefore never change the
/// shape of the URL it is placed in: `a/b` stays one path segment, `a&b=c` stays one query value.
enum PercentEncoding {
    /// How one value is written.
    enum Kind {
        /// A path segment or query item (RFC 3986 §3.3, §3.4; RFC 6570 simple expansion).
        case component
        /// `application/x-www-form-urlencoded`: as `component`, but a space becomes `+`.
        case form
    }

    private static let unreserved: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// The ASCII bytes ``encodeLiteralPath(_:)`` keeps as they are.
    private static let pathLiteral: [Bool] = (0..<256).map { byte in
        unreserved[byte] || "/!$&'()*+,;=:@".utf8.contains(UInt8(byte))
    }

    /// Encodes `value` for `kind`. Strings that need no encoding are returned unchanged, without copying.
    static func encode(_ value: String, as kind: Kind) -> String {
        var value = value
        return value.withUTF8 { bytes in
            guard let first = bytes.firstIndex(where: { !unreserved[Int($0)] }) else {
                return nil
            }
            return encode(bytes, from: first, as: kind)
        } ?? value
    }

    /// Appends the encoding of `value` for `kind` to `output`.
    static func append(_ value: String, as kind: Kind, to output: inout String) {
        output.append(encode(value, as: kind))
    }

    private static func encode(_ bytes: UnsafeBufferPointer<UInt8>, from first: Int, as kind: Kind) -> String {
        let escapes = bytes[first...].lazy.filter { !unreserved[Int($0)] }.count
        let capacity = bytes.count + escapes * 2
        return String(unsafeUninitializedCapacity: capacity) { out in
            var index = 0
            for byte in bytes {
                if unreserved[Int(byte)] {
                    out[index] = byte
                    index += 1
                } else if byte == UInt8(ascii: " ") && kind == .form {
                    out[index] = UInt8(ascii: "+")
                    index += 1
                } else {
                    out[index] = UInt8(ascii: "%")
                    out[index + 1] = hex[Int(byte >> 4)]
                    out[index + 2] = hex[Int(byte & 0x0F)]
                    index += 3
                }
            }
            return index
        }
    }

    /// Whether ``encodeLiteralPath(_:)`` keeps `value` as it is and it has no `//` to merge.
    static func isPlainLiteralPath(_ value: String) -> Bool {
        let table = pathLiteral
        var previous: UInt8 = 0
        for byte in value.utf8 {
            guard table[Int(byte)], !(byte == UInt8(ascii: "/") && previous == byte) else { return false }
            previous = byte
        }
        return true
    }

    /// Encodes literal path text written by the developer: `/` separates segments and is kept,
    /// characters allowed in a path (RFC 3986 `pchar`) are kept, anything else is escaped.
    static func encodeLiteralPath(_ value: String) -> String {
        // Most literals need nothing escaped; an ad-hoc request's path is encoded on every request.
        if value.utf8.allSatisfy({ pathLiteral[Int($0)] }) { return value }
        var output = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "_", "~", "/", "!", "$", "&", "'", "(", ")", "*",
                "+", ",", ";", "=", ":", "@":
                output.unicodeScalars.append(scalar)
            case "%":
                output.append("%25")
            default:
                for byte in String(scalar).utf8 {
                    output.append("%")
                    output.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                    output.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
                }
            }
        }
        return output
    }
}
