// The multipart encoder: a parser written for this target recovers every part (name, file name,
// content type and bytes) from the body, the boundary never occurs inside a part, and the
// encoder refuses content only when it really contains the delimiter.
@testable import Endpoints
import Foundation
import FuzzDriver
import FuzzSupport

struct ParsedPart: Equatable {
    var name: String
    var filename: String?
    var contentType: String?
    var data: [UInt8]
}

/// The first index at or after `from` where `needle` starts in `haystack`.
func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
    guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
    for start in from...(haystack.count - needle.count)
    where haystack[start] == needle[0] && haystack[start..<start + needle.count].elementsEqual(needle) {
        return start
    }
    return nil
}

/// A strict RFC 7578 / RFC 2046 parser: the body is `--B CRLF`, parts each ended by `CRLF --B`,
/// then `--` CRLF. A part's headers end at the first empty line; its content ends at the first
/// delimiter. Quoted parameters end at the first `"` (names escape `"` as `%22`, as browsers do).
func parseMultipart(_ body: [UInt8], boundary: String) -> [ParsedPart]? {
    let dashBoundary = Array("--\(boundary)".utf8)
    let delimiter = Array("\r\n--\(boundary)".utf8)
    guard body.starts(with: dashBoundary) else { return body == dashBoundary + Array("--\r\n".utf8) ? [] : nil }
    var parts: [ParsedPart] = []
    var index = dashBoundary.count
    while true {
        let after = Array(body[index..<min(body.count, index + 2)])
        if after == Array("--".utf8) {
            return body[(index + 2)...].elementsEqual("\r\n".utf8) ? parts : nil
        }
        guard after == Array("\r\n".utf8) else { return nil }
        index += 2
        guard let headerEnd = find(Array("\r\n\r\n".utf8), in: body, from: index) else { return nil }
        let headerText = Array(body[index..<headerEnd])
        let contentStart = headerEnd + 4
        // Searching from the empty line's CRLF finds content that starts with the dash-boundary,
        // which would end the part before its content.
        guard let end = find(delimiter, in: body, from: headerEnd + 2), end >= contentStart,
            var part = parseHeaders(headerText)
        else { return nil }
        part.data = Array(body[contentStart..<end])
        parts.append(part)
        index = end + delimiter.count
    }
}

/// Reads a part's header lines, byte by byte (a `"` followed by a combining mark is one
/// `Character`, so `String` comparisons would misread such names).
func parseHeaders(_ text: [UInt8]) -> ParsedPart? {
    var part = ParsedPart(name: "", filename: nil, contentType: nil, data: [])
    var sawDisposition = false
    let disposition = Array("Content-Disposition: form-data; name=\"".utf8)
    let filename = Array("; filename=\"".utf8)
    let contentType = Array("Content-Type: ".utf8)
    var lines: [ArraySlice<UInt8>] = []
    var rest = text[...]
    while let end = find(Array("\r\n".utf8), in: Array(rest), from: 0) {
        lines.append(rest.prefix(end))
        rest = rest.dropFirst(end + 2)
    }
    lines.append(rest)
    for line in lines {
        if line.starts(with: disposition) {
            var rest = line.dropFirst(disposition.count)
            guard let quote = rest.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            part.name = String(decoding: rest[..<quote], as: UTF8.self)
            rest = rest[(quote + 1)...]
            if rest.starts(with: filename) {
                rest = rest.dropFirst(filename.count)
                guard let close = rest.firstIndex(of: UInt8(ascii: "\"")), close + 1 == rest.endIndex else {
                    return nil
                }
                part.filename = String(decoding: rest[..<close], as: UTF8.self)
            } else if !rest.isEmpty {
                return nil
            }
            sawDisposition = true
        } else if line.starts(with: contentType) {
            part.contentType = String(decoding: line.dropFirst(contentType.count), as: UTF8.self)
        } else {
            return nil
        }
    }
    return sawDisposition ? part : nil
}

/// The boundary named by `multipart/form-data; boundary=...`, unquoted.
func boundary(inContentType text: String) -> String? {
    let prefix = "multipart/form-data; boundary="
    guard text.hasPrefix(prefix) else { return nil }
    let value = text.dropFirst(prefix.count)
    if value.hasPrefix("\"") {
        guard value.count >= 2, value.hasSuffix("\"") else { return nil }
        return String(value.dropFirst().dropLast())
    }
    return String(value)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let flags = input.byte()
    // Mostly valid boundaries, which the encoder writes; sometimes any text, which it must refuse
    // unless it is valid.
    let boundary = flags & 1 == 0 ? String(decoding: input.chunk().prefix(70).map(bchar), as: UTF8.self) : input.string()
    var parts: [MultipartForm.Part] = []
    for _ in 0..<(Int(flags >> 1) & 7) {
        let kind = input.byte()
        let name = input.string()
        var bytes = input.chunk()
        if kind & 4 != 0, !bytes.isEmpty {
            // Content made to hold the delimiter or start with the dash-boundary.
            let cut = Int(kind >> 3) % (bytes.count + 1)
            let marker = kind & 8 != 0 ? "--\(boundary)" : "\r\n--\(boundary)"
            bytes.insert(contentsOf: Array(marker.utf8), at: kind & 16 != 0 ? 0 : cut)
        }
        // A slice of a larger buffer, so Data's non-zero start index is exercised too.
        let padded = Data([0x2D] + bytes)
        let data = kind & 32 != 0 ? padded.dropFirst() : Data(bytes)
        if kind & 1 == 0 {
            parts.append(MultipartForm.Part(name: name, filename: nil, contentType: nil, data: data))
        } else {
            let filename = input.string()
            let contentType: String? = kind & 2 == 0 ? nil : input.string()
            parts.append(MultipartForm.Part(name: name, filename: filename, contentType: contentType, data: data))
        }
    }

    let encoder = MultipartFormEncoder(boundary: boundary)
    let body: Data
    do {
        body = try encoder.write(MultipartForm(parts))
    } catch {
        switch error {
        case .invalidBoundary:
            require(!MultipartFormEncoder.isValidBoundary(boundary), "valid boundary \(boundary) refused")
        case .invalidContentType(let name):
            let holds = parts.contains { part in
                part.name == name && part.contentType.map { $0.utf8.contains { [0, 0x0A, 0x0D].contains($0) } } == true
            }
            require(holds, "content type refused without CR, LF or NUL in it")
        case .boundaryInContent(let name):
            let delimiter = Array("\r\n--\(boundary)".utf8)
            let holds = parts.contains { part in
                part.name == name
                    && (find(delimiter, in: Array(part.data), from: 0) != nil
                        || Array(part.data).starts(with: delimiter.dropFirst(2)))
            }
            require(holds, "content refused without the delimiter in it")
        case .unsupportedValue:
            require(false, "unsupported value for a MultipartForm")
        }
        return 0
    }
    require(MultipartFormEncoder.isValidBoundary(boundary), "invalid boundary \(boundary.debugDescription) accepted")
    require(encoder.contentType.flatMap(FuzzMultipart.boundary(inContentType:)) == boundary, "content type boundary")
    guard let parsed = parseMultipart(Array(body), boundary: boundary) else {
        require(false, "the body does not parse: \(String(decoding: body, as: UTF8.self).debugDescription)")
        return 0
    }
    require(parsed.count == parts.count, "\(parts.count) parts written, \(parsed.count) read")
    for (written, read) in zip(parts, parsed) {
        require(
            Array(read.name.utf8) == Array(MultipartFormEncoder.escape(written.name).utf8),
            "name \(written.name.debugDescription)"
        )
        require(!read.name.utf8.contains(where: { [0x22, 0x0D, 0x0A].contains($0) }), "name keeps a quote or line break")
        if !written.name.utf8.contains(UInt8(ascii: "%")) {
            require(read.name.removingPercentEncoding == written.name || !read.name.contains("%"), "name \(written.name.debugDescription) read as \(read.name.debugDescription)")
        }
        require(
            read.filename.map { Array($0.utf8) } == written.filename.map { Array(MultipartFormEncoder.escape($0).utf8) },
            "file name"
        )
        require(read.contentType.map { Array($0.utf8) } == written.contentType.map { Array($0.utf8) }, "content type")
        require(read.data == Array(written.data), "content of \(written.name.debugDescription)")
    }
    return 0
}

/// Maps any byte onto the RFC 2046 boundary characters (a final space makes it invalid).
func bchar(_ byte: UInt8) -> UInt8 {
    bchars[Int(byte) % bchars.count]
}

let bchars = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=? ".utf8)

/// The executable's entry point (see FuzzDriver.h).
@_cdecl("FuzzMultipart_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    endpoints_fuzz_main(argc, argv)
}
