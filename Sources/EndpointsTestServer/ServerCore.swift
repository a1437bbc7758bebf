import Dispatch
import Endpoints
import Foundation

/// The state shared by a ``TestServer`` and its background threads.
///
/// Threads reference the core, never the `TestServer`, so dropping the last `TestServer` reference
/// runs its `deinit`, which stops the core.
final class ServerCore: Sendable {
    struct State: Sendable {
        var stopped = false
        var openConnections: Set<Int32> = []
        var connectionCount = 0
        var requests: [TestServer.Request] = []
        var routes: [CustomRoute] = []
    }

    let state = Locked(State())
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let acceptLoopExited = DispatchSemaphore(value: 0)

    init(listener: Int32, wake: (read: Int32, write: Int32)) {
        self.listener = listener
        self.wakeRead = wake.read
        self.wakeWrite = wake.write
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    func start() {
        spawnThread { self.acceptLoop() }
    }

    /// Stops accepting, wakes every connection thread, and returns once the listener is closed.
    func stop() {
        let isFirstStop = state.withLock { state in
            guard !state.stopped else { return false }
            state.stopped = true
            // Under the lock, so no descriptor can be closed and reused between lookup and shutdown.
            for fd in state.openConnections { Socket.shutdownBoth(fd) }
            return true
        }
        guard isFirstStop else { return }
        Socket.writeByte(wakeWrite)
        acceptLoopExited.wait()
        Socket.closeDescriptor(wakeWrite)
    }

    private func acceptLoop() {
        defer {
            Socket.closeDescriptor(listener)
            Socket.closeDescriptor(wakeRead)
            acceptLoopExited.signal()
        }
        while Socket.waitForConnection(listener: listener, wake: wakeRead) {
            switch Socket.accept(listener) {
            case .retry:
                continue
            case .failed:
                usleep(10_000)
            case .connection(let fd):
                let accepted = state.withLock { state in
                    guard !state.stopped else { return false }
                    state.openConnections.insert(fd)
                    state.connectionCount += 1
                    return true
                }
                guard accepted else {
                    Socket.closeDescriptor(fd)
                    return
                }
                spawnThread { self.serve(fd) }
            }
        }
    }

    /// Serves requests on one connection until either side closes it or the server stops.
    private func serve(_ fd: Int32) {
        defer {
            Socket.finishWriting(fd)
            state.withLock { state in
                state.openConnections.remove(fd)
                Socket.closeDescriptor(fd)
            }
        }
        let reader = RequestReader(fd: fd)
        while !isStopped {
            let request: TestServer.Request
            do throws(ReadError) {
                request = try reader.readRequest()
            } catch {
                if case .rejected(let status, let message) = error {
                    ResponseWriter.writeError(status: status, message: message, to: fd)
                }
                return
            }
            let handler = state.withLock { state in
                state.requests.append(request)
                return bestRoute(for: request.rawPath, in: state.routes)?.handler
            }
            var response = handler.map { runBlocking($0, request) } ?? BuiltinRoutes.respond(to: request)
            let keepAlive = wantsKeepAlive(request) && !closesConnection(response)
            if keepAlive && request.version == "HTTP/1.0" {
                response.headers.append((name: "Connection", value: "keep-alive"))
            }
            let written = ResponseWriter.write(
                response, to: fd, isHead: request.method == "HEAD", keepAlive: keepAlive,
                isStopped: { self.isStopped })
            guard written, keepAlive else { return }
        }
    }

    private func wantsKeepAlive(_ request: TestServer.Request) -> Bool {
        let options = connectionOptions(request.headers)
        if options.contains("close") { return false }
        return request.version != "HTTP/1.0" || options.contains("keep-alive")
    }

    private func closesConnection(_ response: TestServer.Response) -> Bool {
        if case .truncate = response.behavior { return true }
        return connectionOptions(response.headers).contains("close")
    }

    private func connectionOptions(_ headers: [(name: String, value: String)]) -> [String] {
        headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}

/// Runs `body` on a new thread with a modest stack, so hundreds of connections stay cheap.
private func spawnThread(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.stackSize = 512 * 1024
    thread.start()
}
