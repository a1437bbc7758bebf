// The cURL renderer: the command, split into words by the POSIX shell splitter below, yields
// exactly the arguments curl must receive (method, URL, each header, the body), and a binary
// body's printf format prints exactly the body's bytes. Redacted commands split just as cleanly.
@testable import Endpoints
import Foundation
import FuzzDriver
import FuzzSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A word, or the `|` operator.
enum Word: Equatable {
    case word(String)
    case pipe
}

/// Splits `command` as a POSIX shell does (XCU §2.2, §2.3), and refuses (returns `nil`) any
/// unquoted character that the shell would expand or treat as an operator other than `|`, so a
/// word that splits here means the same to sh, bash and zsh. Bytes are kept as bytes.
func shellWords(_ command: String) -> [Word]? {
    var words: [Word] = []
    var current: [UInt8] = []
    var inWord = false
    var bytes = Array(command.utf8)[...]
    func finish() {
        if inWord { words.append(.word(String(decoding: current, as: UTF8.self))) }
        current = []
        inWord = false
    }
    while let byte = bytes.popFirst() {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"):
            finish()
        case UInt8(ascii: "\\"):
            guard let next = bytes.popFirst() else { return nil }
            if next == UInt8(ascii: "\n") { continue }  // a line continuation
            current.append(next)
            inWord = true
        case UInt8(ascii: "'"):
            guard let close = bytes.firstIndex(of: UInt8(ascii: "'")) else { return nil }
            current.append(contentsOf: bytes[..<close])
            bytes = bytes[(close + 1)...]
            inWord = true
        case UInt8(ascii: "\""):
            // Double quotes: only `\` before $ ` " \ or a newline escapes; $ and ` expand.
            inWord = true
            while true {
                guard let inner = bytes.popFirst() else { return nil }
                if inner == UInt8(ascii: "\"") { break }
                if inner == UInt8(ascii: "$") || inner == UInt8(ascii: "`") { return nil }
                if inner == UInt8(ascii: "\\"), let next = bytes.first, "$`\"\\\n".utf8.contains(next) {
                    bytes.removeFirst()
                    if next != UInt8(ascii: "\n") { current.append(next) }
                } else {
                    current.append(inner)
                }
            }
        case UInt8(ascii: "|"):
            finish()
            words.append(.pipe)
        case UInt8(ascii: "#") where !inWord, UInt8(ascii: "~") where !inWord:
            return nil
        default:
            if "$`;&<>()*?[]{}!\r".utf8.contains(byte) || byte == 0 { return nil }
            current.append(byte)
            inWord = true
        }
    }
    finish()
    return words
}

/// What `printf FORMAT` prints, for the escapes the renderer writes: `%%` and `\ooo`.
func printf(_ format: String) -> [UInt8]? {
    var output: [UInt8] = []
    var bytes = Array(format.utf8)[...]
    while let byte = bytes.popFirst() {
        switch byte {
        case UInt8(ascii: "%"):
            guard bytes.popFirst() == UInt8(ascii: "%") else { return nil }
            output.append(byte)
        case UInt8(ascii: "\\"):
            var value = 0
            var digits = 0
            while digits < 3, let next = bytes.first, (0x30...0x37).contains(next) {
                value = value * 8 + Int(next - 0x30)
                bytes.removeFirst()
                digits += 1
            }
            guard digits > 0, value < 256 else { return nil }
            output.append(UInt8(value))
        default:
            output.append(byte)
        }
    }
    return output
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let flags = input.byte()
    let methods = ["GET", "POST", "HEAD", "PUT", "DELETE", "PATCH"]
    let method = flags & 8 == 0 ? methods[Int(flags & 7) % methods.count] : input.string()
    guard let url = URL(string: input.string()) else { return 0 }
    var request = URLRequest(url: url)
    request.httpMethod = method
    for _ in 0..<(Int(flags >> 4) & 3) {
        let name = input.string()
        let value = input.string()
        // What the library can send: token names, values without CR, LF or NUL.
        guard HTTPToken.isValid(name), HTTPToken.isValidFieldValue(value) else { continue }
        request.setValue(value, forHTTPHeaderField: name)
    }
    if flags & 64 != 0 {
        request.setValue("multipart/form-data; boundary=b", forHTTPHeaderField: "Content-Type")
    }
    let body = input.rest()
    request.httpBody = body.isEmpty ? nil : Data(body)
    // Methods are tokens (the library refuses others before building).
    guard let sentMethod = request.httpMethod, HTTPToken.isValid(sentMethod) else { return 0 }

    let command = request.cURLDescription(redaction: .disabled)
    guard var words = shellWords(command) else {
        require(false, "the command does not split: \(command.debugDescription)")
        return 0
    }
    var expected: [Word] = []
    let sentBody = request.httpBody ?? Data()
    if !sentBody.isEmpty, CURLQuoting.plainText(sentBody) == nil {
        guard words.count >= 3, words[0] == .word("printf"), words[2] == .pipe, case .word(let format) = words[1]
        else {
            require(false, "no printf before a binary body: \(command.debugDescription)")
            return 0
        }
        require(printf(format) == Array(sentBody), "printf \(format.debugDescription) does not print the body")
        words.removeFirst(3)
    }
    expected.append(.word("curl"))
    switch sentMethod {
    case "GET" where sentBody.isEmpty: break
    case "HEAD": expected.append(.word("--head"))
    default: expected += [.word("-X"), .word(sentMethod)]
    }
    let urlText = url.absoluteString
    if urlText.contains(where: { "[]{}".contains($0) }) { expected.append(.word("--globoff")) }
    expected.append(.word(urlText))
    let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
    for (name, value) in fields {
        expected += [.word("-H"), .word(value.isEmpty ? "\(name);" : "\(name): \(value)")]
    }
    if !sentBody.isEmpty {
        if !fields.contains(where: { $0.key.lowercased() == "content-type" }) {
            expected += [.word("-H"), .word("Content-Type:")]
        }
        if let text = CURLQuoting.plainText(sentBody) {
            require(Array(text.utf8) == Array(sentBody), "the text body is not the body's bytes")
            expected += [.word("--data-raw"), .word(text)]
        } else {
            expected += [.word("--data-binary"), .word("@-")]
        }
    }
    require(words == expected, "\(command.debugDescription) splits into \(words), not \(expected)")

    // With the standard redaction the command still splits into as many words.
    let redacted = request.cURLDescription()
    require(shellWords(redacted)?.count == (shellWords(command)?.count ?? -1), "redacted: \(redacted.debugDescription)")
    return 0
}

/// The executable's entry point (see FuzzDriver.h).
@_cdecl("FuzzCURL_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    endpoints_fuzz_main(argc, argv)
}
