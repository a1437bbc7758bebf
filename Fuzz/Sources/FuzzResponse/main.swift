import Foundation
import FuzzDriver
import FuzzSupport

// What a hostile server sends, read by the libcurl transport's own code: its response head
// reader, its chain of body decoders, and the parsers of the fields it acts on.
//
// - The head (`CurlResponseHead`), fed line by line: a head it completes has a status of 100-999
//   that is not interim (but 101), and its `HTTPURLResponse` holds no CR, LF or NUL in any field;
//   lines after it are ignored.
// - The decoders (`CurlDecoder`, up to six codings named by the input, the body its rest): decoded
//   at once, a body is used up or refused, and nothing is left held. Decoded again in random pieces
//   with the reader falling behind at random (as the transport pauses and resumes), it gives the
//   same bytes (the shorter of the two outputs, when either fails, is a prefix of the longer),
//   ends at the same place in each coding's stream (whether a body cut short is refused does not
//   depend on how it arrived), and never more than the bomb limit allows.
// - `Location` resolution, `Cache-Control`, `Link`, and a `Set-Cookie` field kept in a store and
//   sent back: no crash, and what they give is well formed (a target has a scheme, a maximum age
//   is not NaN, a `Cookie` header holds no CR, LF or NUL).
@testable import Endpoints

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let base = URL(string: "http://example.com/a/b?q=1")!

func checkHead(_ bytes: [UInt8]) {
    var head = CurlResponseHead()
    var lines: [[UInt8]] = []
    var line: [UInt8] = []
    for byte in bytes {
        line.append(byte)
        if byte == UInt8(ascii: "\n") {
            lines.append(line)
            line = []
        }
    }
    if !line.isEmpty { lines.append(line) }
    for line in lines {
        let step = line.withUnsafeBytes { head.consume($0) }
        switch step {
        case .invalid:
            require(!head.isComplete, "a line after the head was refused")
            return
        case .ended:
            require(head.isComplete, "ended without completing")
            require((100...999).contains(head.statusCode), "status \(head.statusCode)")
            require(
                !(100..<200).contains(head.statusCode) || head.statusCode == 101, "interim \(head.statusCode) ended")
            guard let response = head.response(url: base) else {
                require(false, "a complete head gave no response")
                return
            }
            require(response.statusCode == head.statusCode, "status \(response.statusCode) ≠ \(head.statusCode)")
            // What the pipeline and callers read of a response, through corelibs' parsers.
            _ = (response.mimeType, response.textEncodingName, response.expectedContentLength)
            _ = (response.suggestedFilename, response.value(forHTTPHeaderField: "Content-Type"))
            for (name, value) in response.allHeaderFields {
                let text = "\(name)\(value)"
                require(
                    !text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }, "field \(text.debugDescription)")
            }
        case .ignored:
            require(head.isComplete, "a line was ignored before the head ended")
        case .more, .interimEnded:
            require(!head.isComplete, "more after the head ended")
        }
    }
}

#if canImport(FoundationNetworking)
    /// Every name a `Content-Encoding` list entry may take here, decoded or not.
    let names = ["gzip", "deflate", "br", "zstd", "identity", "x-gzip", "", "compress"]

    /// Decodes `body` once, whole: the bytes, whether it ended without failure, and whether it
    /// ended where each coding's stream did.
    func decodeWhole(_ encoding: String, _ body: [UInt8]) -> (output: [UInt8], failed: Bool, complete: Bool)? {
        guard let decoder = CurlDecoder(contentEncoding: encoding) else { return nil }
        var output: [UInt8] = []
        let result = body.withUnsafeBytes { bytes in
            decoder.decode(bytes, shouldStop: { false }, deliver: { output.append(contentsOf: $0) })
        }
        switch result {
        case .failure:
            return (output, true, false)
        case .success(let used):
            require(used == body.count, "\(encoding): used \(used) of \(body.count) with no pause")
            require(!decoder.holdsOutput, "\(encoding): output held with no pause")
            return (output, false, decoder.isComplete)
        }
    }

    /// Decodes `body` in pieces, the reader falling behind at random: what the transport does.
    func decodeInPieces(
        _ encoding: String, _ body: [UInt8], seed: UInt64
    ) -> (output: [UInt8], failed: Bool, complete: Bool) {
        let decoder = CurlDecoder(contentEncoding: encoding)!
        var random = Generator(seed: seed)
        var output: [UInt8] = []
        var offset = 0
        var waiting: [UInt8] = []
        var calls = 0
        while offset < body.count || !waiting.isEmpty || decoder.holdsOutput {
            calls += 1
            require(calls < 100_000, "\(encoding): no end in sight")
            let input: [UInt8]
            if !waiting.isEmpty || decoder.holdsOutput {
                input = waiting  // resumed: what waited goes first
            } else {
                let size = Int(random.next() % 300) + 1
                input = Array(body[offset..<min(body.count, offset + size)])
                offset += input.count
            }
            // The reader is behind after a few deliveries, or not at all.
            let patience = Int(random.next() % 4)
            var deliveries = 0
            let result = input.withUnsafeBytes { bytes in
                decoder.decode(
                    bytes, shouldStop: { patience > 0 && deliveries >= patience },
                    deliver: {
                        output.append(contentsOf: $0)
                        deliveries += 1
                    })
            }
            switch result {
            case .failure:
                return (output, true, false)
            case .success(let used):
                require(used <= input.count, "used more than given")
                waiting = Array(input[used...])
            }
            if decoder.ended { break }
        }
        return (output, false, decoder.isComplete)
    }

    func checkDecoding(_ encoding: String, _ body: [UInt8], seed: UInt64) {
        guard let whole = decodeWhole(encoding, body) else { return }
        let bound = max(CurlDecoder.allowance, body.count * CurlDecoder.maximumRatio)
        require(whole.output.count <= bound, "\(encoding): \(whole.output.count) bytes from \(body.count)")
        let pieces = decodeInPieces(encoding, body, seed: seed)
        require(pieces.output.count <= bound, "\(encoding): \(pieces.output.count) bytes in pieces")
        if !whole.failed && !pieces.failed {
            require(whole.output == pieces.output, "\(encoding): pieces gave other bytes")
            require(whole.complete == pieces.complete, "\(encoding): pieces ended elsewhere in the stream")
        } else {
            let (short, long) =
                whole.output.count <= pieces.output.count
                ? (whole.output, pieces.output) : (pieces.output, whole.output)
            require(long.starts(with: short), "\(encoding): the outputs part ways")
        }
    }
#endif

func checkFields(_ text: String) {
    if let target = RedirectLocation.target(of: text, from: base) {
        let scheme = target.scheme ?? ""
        require(!scheme.isEmpty, "\(text.debugDescription) resolved to \(target) with no scheme")
    }
    _ = CacheControl(text)
    if let age = CookieHeader.maximumAge(in: "a=b; " + text) {
        require(!age.isNaN && age <= 400 * 24 * 3600, "Max-Age \(age) from \(text.debugDescription)")
    }
    _ = WebLink.parse(text, relativeTo: base)
    #if canImport(FoundationNetworking)
        // A `Set-Cookie` field, through corelibs' parser into a store and back out: what goes out
        // in a `Cookie` header holds no CR, LF or NUL.
        let request = URLRequest(url: base)
        CookieHeader.store([text], from: base, for: request, in: cookies)
        if let header = CookieHeader.withStoredCookies(request, storage: cookies).value(forHTTPHeaderField: "Cookie") {
            require(
                !header.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }, "Cookie \(header.debugDescription)")
        }
        for cookie in cookies.cookies ?? [] { cookies.deleteCookie(cookie) }
    #endif
}

#if canImport(FoundationNetworking)
    /// A store in memory, emptied after each input.
    let cookies = URLSessionConfiguration.ephemeral.httpCookieStorage!
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    switch input.byte() % 3 {
    case 0:
        checkHead(input.rest())
    case 1:
        #if canImport(FoundationNetworking)
            let stages = Int(input.byte() % 6) + 1
            let encoding = (0..<stages).map { _ in names[Int(input.byte()) % names.count] }.joined(separator: ", ")
            let seed = UInt64(input.byte())
            checkDecoding(encoding, input.rest(), seed: seed)
        #endif
    default:
        checkFields(String(decoding: input.rest(), as: UTF8.self))
    }
    return 0
}

/// The executable's entry point (see FuzzDriver.h).
@_cdecl("FuzzResponse_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    endpoints_fuzz_main(argc, argv)
}
