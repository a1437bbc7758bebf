import Endpoints
import EndpointsTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

@Suite struct MiddlewareCURLTests {
    /// The shell (`curl`) exited with a status other than 0.
    struct ShellFailed: Error { let status: Int32 }

    /// Runs `line` with `/bin/sh -c` on a thread of its own and returns its standard output. Not on
    /// the cooperative pool: waiting there for `curl`, whose request the test server answers with
    /// an async route that needs a pool thread, stood the whole suite still for a minute under
    /// ThreadSanitizer when two such waits held both threads of a 2-core machine.
    static func runShellOffThePool(_ line: String) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try runShell(line) }) }.start()
        }
    }

    /// Runs `line` with `/bin/sh -c` and returns its standard output.
    static func runShell(_ line: String) throws -> Data {
        #if canImport(Glibc)
            // Not Foundation's Process: in corelibs (Swift 6.3.1) Process.run() reads past a
            // buffer while listing /proc/self/fd and crashes now and then
            // (swiftlang/swift-corelibs-foundation#5472); posix_spawn has no such step.
            var pipeEnds: [Int32] = [-1, -1]
            guard pipe(&pipeEnds) == 0 else { throw POSIXError(.EMFILE) }
            // Close-on-exec, so a child another test spawns meanwhile does not hold the pipe open.
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let words: [String] = ["/bin/sh", "-c", line]
            let arguments: [UnsafeMutablePointer<CChar>?] = words.map { word in strdup(word) } + [nil]
            defer { arguments.forEach { free($0) } }
            var pid = pid_t()
            let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, arguments, environ)
            close(pipeEnds[1])
            defer { close(pipeEnds[0]) }
            guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOEXEC) }
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = read(pipeEnds[0], &buffer, buffer.count)
                if count > 0 {
                    data.append(contentsOf: buffer[0..<count])
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let exitedNormally = status & 0x7f == 0
            let exitCode = (status >> 8) & 0xff
            guard exitedNormally && exitCode == 0 else { throw ShellFailed(status: status) }
            return data
        #else
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", line]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw ShellFailed(status: process.terminationStatus) }
            return data
        #endif
    }

    /// Sends `request` with the library's transport and with the system `curl` (from the unredacted
    /// cURL line), and checks that the server's echo of both agrees.
    static func expectSameEcho(_ request: URLRequest, headers compared: [String]) async throws {
        let session = makeMiddlewareTestSession()
        let (data, _) = try await URLSessionTransport(session: session)
            .send(request, context: RequestContext(endpointName: "cURL"))
        let library = try JSONDecoder().decode(MiddlewareEcho.self, from: data)

        let line = request.cURLDescription(redaction: .disabled) + " \\\n  --silent --show-error"
        let shell = try JSONDecoder().decode(MiddlewareEcho.self, from: try await runShellOffThePool(line))

        #expect(shell.method == library.method)
        #expect(shell.path == library.path)
        #expect(shell.query == library.query)
        #expect(shell.bodyBase64 == library.bodyBase64)
        for name in compared {
            #expect(shell.headers[name] == library.headers[name], "header \(name)")
            #expect(shell.headers[name] != nil, "header \(name) missing")
        }
    }

    @Test func textBodyWithQuotesReproducesTheRequest() async throws {
        let server = try TestServer()
        defer { server.stop() }
        var request = URLRequest(url: server.url("/echo/it's%20here?q=it's&list=%5B1%5D&e=%C3%A9"))
        request.httpMethod = "POST"
        request.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer a'b\"c$HOME`id`", forHTTPHeaderField: "Authorization")
        request.setValue("it's \"quoted\" \\ $PATH", forHTTPHeaderField: "X-Quote")
        request.httpBody = Data("{\"name\":\"O'Hara\",\n\t\"note\":\"$(whoami) `id` \\\\ é 🚀\",\"n\":\"@file\"}".utf8)
        try await Self.expectSameEcho(request, headers: ["content-type", "authorization", "x-quote"])
    }

    @Test func binaryBodyReproducesEveryByte() async throws {
        let server = try TestServer()
        defer { server.stop() }
        var request = URLRequest(url: server.url("/echo/upload"))
        request.httpMethod = "PUT"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data((0..<512).map { UInt8($0 % 256) })
        try await Self.expectSameEcho(request, headers: ["content-type"])
        #expect(request.cURLDescription().hasPrefix("printf '\\000\\001"))
    }

    @Test func multipartBodyReproducesTheRequest() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let boundary = "Boundary-7MA4YWxkTrZu0gW"
        var body = Data()
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nIt's mine\r\n".utf8))
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n".utf8))
        body.append(Data("Content-Type: application/octet-stream\r\n\r\n".utf8))
        body.append(Data([0x00, 0xFF, 0x25, 0x5C, 0x27, 0x0A, 0x0D]))
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        var request = URLRequest(url: server.url("/echo/form"))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        try await Self.expectSameEcho(request, headers: ["content-type"])
    }

    @Test func methodsWithoutBodiesAndEmptyHeaders() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for method in ["GET", "DELETE", "OPTIONS"] {
            var request = URLRequest(url: server.url("/echo/\(method.lowercased())?a=1&b={x}"))
            request.httpMethod = method
            request.setValue("yes", forHTTPHeaderField: "X-Flag")
            try await Self.expectSameEcho(request, headers: ["x-flag"])
        }
        var request = URLRequest(url: URL(string: "http://example.com/")!)
        request.setValue("", forHTTPHeaderField: "X-Empty")
        #expect(request.cURLDescription() == "curl 'http://example.com/' \\\n  -H 'X-Empty;'")
    }

    @Test func redactsLikeTheLogUnlessRevealed() {
        var request = URLRequest(url: URL(string: "https://user:pw@api.example.com/a?token=t0k&q=1")!)
        request.httpMethod = "POST"
        request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
        request.setValue("k3y", forHTTPHeaderField: "X-Client-Key")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"password":"pa55","user":"ada"}"#.utf8)
        let redacted = request.cURLDescription(credentialHeaders: ["X-Client-Key"])
        for secret in ["user:pw", "t0k", "s3cret", "k3y", "pa55"] {
            #expect(!redacted.contains(secret))
        }
        #expect(
            redacted == """
                curl -X 'POST' 'https://<redacted>@api.example.com/a?token=<redacted>&q=1' \\
                  -H 'Authorization: <redacted>' \\
                  -H 'Content-Type: application/json' \\
                  -H 'X-Client-Key: <redacted>' \\
                  --data-raw '{"password":"<redacted>","user":"ada"}'
                """
        )
        let revealed = request.cURLDescription(redaction: .standard.revealing("Authorization"))
        #expect(revealed.contains("-H 'Authorization: Bearer s3cret'"))
        #expect(!revealed.contains("pa55"))
    }
}
