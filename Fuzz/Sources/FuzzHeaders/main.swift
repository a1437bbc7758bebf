// Header validation: nothing the library accepts puts CR, LF or NUL into a header, and every
// header name it sends is an RFC 9110 token. Covers header values and names in a definition,
// methods, and each built-in authentication method's header, which must really be set when the
// method succeeds (Foundation on Linux silently drops a value holding CR, LF or NUL).
@testable import Endpoints
import Foundation
import FuzzDriver
import FuzzSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The definition of the current input; the fuzzer runs one input at a time on one thread.
nonisolated(unsafe) var currentDefinition = Definition<HeaderEndpoint>(path: "h")

struct HeaderEndpoint: Endpoint {
    typealias Server = FuzzServer
    typealias Response = Data
    struct HeaderComponents: Sendable {
        let first: String
        let second: String?
    }
    static var definition: Definition<HeaderEndpoint> { currentDefinition }
    let headerComponents: HeaderComponents
}

func isForbidden(_ byte: UInt8) -> Bool { byte == 0x0D || byte == 0x0A || byte == 0x00 }

func hasForbidden(_ text: String) -> Bool { text.utf8.contains(where: isForbidden) }

/// Every header of `request` is a token name and a value without CR, LF or NUL.
func requireClean(_ request: URLRequest, _ context: @autoclosure () -> String) {
    for (name, value) in request.allHTTPHeaderFields ?? [:] {
        require(HTTPToken.isValid(name), "\(context()): header name \(name.debugDescription) sent")
        require(!hasForbidden(value), "\(context()): \(name) value \(value.debugDescription) sent")
    }
    require(request.httpMethod.map(HTTPToken.isValid) ?? true, "\(context()): method sent")
}

/// Runs jobs on the thread that enqueues them. A task that never suspends (the built-in methods
/// do not when they hold their credentials) thus runs to its end inside `Task.init`, without the
/// thread hops that made each input take a millisecond.
final class InlineExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}

let inline = InlineExecutor()

/// Runs each authentication method on `request` to completion, in one task.
func authenticate(
    _ methods: [(String, any AuthenticationMethod)],
    _ request: URLRequest
) -> [(String, Result<URLRequest, AuthenticationError>)] {
    let box = Locked<[(String, Result<URLRequest, AuthenticationError>)]>([])
    let done = DispatchSemaphore(value: 0)
    Task(executorPreference: inline) {
        for (label, method) in methods {
            let result: Result<URLRequest, AuthenticationError>
            do throws(AuthenticationError) {
                result = .success(try await method.authenticate(request: request))
            } catch {
                result = .failure(error)
            }
            box.withLock { $0.append((label, result)) }
        }
        done.signal()
    }
    done.wait()
    return box.withLock { $0 }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let flags = input.byte()
    let name = input.string()
    let method = input.string()
    let first = input.string()
    let second: String? = flags & 1 == 0 ? nil : input.string()
    let fixed = input.string()

    // A definition with a fuzzed header name, a fixed value and two values from components (a
    // fuzzed name equal to another replaces it).
    currentDefinition = Definition(
        method: flags & 2 == 0 ? .get : Method(rawValue: method),
        path: "h",
        headers: [
            Header("X-Second").value(path: \.second), Header("X-Fixed").value(fixed),
            Header(name).value(path: \.first),
        ]
    )
    let endpoint = HeaderEndpoint(headerComponents: .init(first: first, second: second))
    do {
        let request = try endpoint.urlRequest()
        requireClean(request, "endpoint")
        require(!hasForbidden(first) && !hasForbidden(second ?? "") && !hasForbidden(fixed), "bad value accepted")
        require(request.value(forHTTPHeaderField: "X-Fixed") == (fixed.isEmpty ? nil : fixed) || fixed.isEmpty, "fixed")
    } catch {
        switch error {
        case .invalidHeaderValue:
            require(hasForbidden(first) || hasForbidden(second ?? "") || hasForbidden(fixed), "clean value refused")
        case .invalidHeaderName(let bad):
            require(!HTTPToken.isValid(bad), "token \(bad.debugDescription) refused")
        case .invalidMethod(let bad):
            require(!HTTPToken.isValid(bad), "method \(bad.debugDescription) refused")
        default:
            require(false, "unexpected \(error)")
        }
    }

    // Each authentication method refuses credentials it cannot send safely.
    let request = URLRequest(url: URL(string: "https://api.example.com/")!)
    let methods: [(String, any AuthenticationMethod)] = [
        ("HeaderKeyAuth", HeaderKeyAuth(key: first, header: name, prefix: second)),
        ("HeaderKeyAuth(nil)", HeaderKeyAuth(key: first, header: "X-Key", prefix: nil)),
        ("BasicAuth", BasicAuth(username: first, password: fixed)),
        ("CookieAuth", CookieAuth(name: name, value: first)),
        (
            "JWTAuth",
            JWTAuth(
                initialTokens: JWTAuth.TokenPair(accessToken: first, refreshToken: fixed),
                refreshHandler: { _ in throw CancellationError() }
            )
        ),
    ]
    // The header each method sets, in the order of `methods`.
    let setHeaders = [name, "X-Key", "Authorization", "Cookie", "Authorization"]
    var withCookie = request
    if !hasForbidden(fixed) { withCookie.setValue(fixed.isEmpty ? nil : fixed, forHTTPHeaderField: "Cookie") }
    for ((label, result), header) in zip(authenticate(methods, withCookie), setHeaders) {
        guard case .success(let sent) = result else { continue }
        requireClean(sent, label)
        // Foundation on Linux drops a value with CR, LF or NUL without a word; a method that
        // succeeds must really have set its header.
        require(sent.value(forHTTPHeaderField: header) != nil, "\(label) succeeded without a \(header) header")
    }
    return 0
}

/// The executable's entry point (see FuzzDriver.h).
@_cdecl("FuzzHeaders_main")
func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    endpoints_fuzz_main(argc, argv)
}
