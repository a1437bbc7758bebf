#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation

    /// The loop's open connect-only sockets (``CurlSocket``, a WebSocket's connection each), and
    /// which of them have something to do: the loop thread's alone.
    ///
    /// A socket is serviced in a turn only when it is ready (its descriptor readable, or writable
    /// while it has bytes to send), was touched (a send, a close, a reader that caught up), just
    /// opened, or is past its deadline. The descriptors wait in one epoll set, and
    /// `curl_multi_poll` watches the set's own descriptor beside libcurl's: so a turn costs the
    /// same however many sockets are open and idle. (Servicing every socket and polling every
    /// descriptor in every turn cost each request 3 to 5 µs of the loop thread per open WebSocket,
    /// at 100 and 300 of them: `endpoints-bench sockets`.)
    ///
    /// The set is level-triggered: a socket stays ready until its turn reads or writes what it
    /// can. A socket that waits for nothing (its reader behind, nothing to send) leaves the set,
    /// since epoll reports a hang-up even to a socket that asked for no events.
    final class CurlSocketSet {
        private var sockets: [ObjectIdentifier: CurlSocket] = [:]
        /// Sockets to service in the next turn.
        private var due = Set<ObjectIdentifier>()
        /// Sockets with a deadline (their answer's head has not come).
        private var timed = Set<ObjectIdentifier>()
        /// The epoll set (-1 until the first socket opens), and whose each descriptor in it is.
        private var epoll: Int32 = -1
        private var owners: [Int32: ObjectIdentifier] = [:]
        private var ready = [Int32](repeating: -1, count: 64)

        deinit {
            if epoll >= 0 { _ = close(epoll) }
        }

        var isEmpty: Bool { sockets.isEmpty }
        var count: Int { sockets.count }

        /// libcurl connected `socket`: it is serviced in this turn. An error when no epoll set can
        /// be made (the process is out of descriptors).
        func open(_ socket: CurlSocket) -> URLError? {
            if epoll < 0 {
                epoll = ep_socket_set_create()
                guard epoll >= 0 else {
                    return URLError(.resourceUnavailable, userInfo: [NSURLErrorFailingURLErrorKey: socket.url])
                }
            }
            let id = ObjectIdentifier(socket)
            sockets[id] = socket
            due.insert(id)
            if socket.deadline != .max { timed.insert(id) }
            return nil
        }

        /// `socket` has work: it is serviced in the next turn.
        func touch(_ socket: CurlSocket) {
            due.insert(ObjectIdentifier(socket))
        }

        /// A turn of I/O for each socket that has something to do; returns those done with, whose
        /// handles the loop removes.
        func service(now: UInt64) -> [CurlSocket] {
            var ended: [CurlSocket] = []
            for id in timed where (sockets[id]?.deadline ?? 0) <= now { due.insert(id) }
            for id in due {
                guard let socket = sockets[id] else { continue }
                if socket.loopService(now: now) {
                    if watch(socket, input: !socket.readPaused, output: socket.wantsOutput) {
                        if socket.deadline == .max { timed.remove(id) }
                        continue
                    }
                    socket.loopEnd(URLError(.resourceUnavailable, userInfo: [NSURLErrorFailingURLErrorKey: socket.url]))
                }
                _ = watch(socket, input: false, output: false)
                sockets[id] = nil
                timed.remove(id)
                ended.append(socket)
            }
            due.removeAll(keepingCapacity: true)
            return ended
        }

        /// The earliest deadline of a socket's answer's head (uptime ns).
        var deadline: UInt64 {
            timed.reduce(UInt64.max) { next, id in min(next, sockets[id]?.deadline ?? .max) }
        }

        /// What `curl_multi_poll` should watch besides libcurl's own descriptors.
        var pollDescriptor: ep_waitfd? {
            owners.isEmpty ? nil : ep_waitfd(fd: epoll, events: Int16(EP_CURL_WAIT_POLLIN), revents: 0)
        }

        /// After the poll: when the set's descriptor was ready, the sockets that are ready are due.
        func polled(_ descriptor: ep_waitfd) {
            guard descriptor.revents != 0 else { return }
            let count = ready.withUnsafeMutableBufferPointer { fds in
                ep_socket_set_ready(epoll, fds.baseAddress, Int32(fds.count))
            }
            for fd in ready.prefix(Int(max(0, count))) {
                if let owner = owners[fd] { due.insert(owner) }
            }
        }

        /// Waits on `socket` for input and output as asked (neither: not at all), if that differs
        /// from what it waited for; `false` when epoll refuses (out of memory, or past
        /// `max_user_watches`): a socket that cannot be waited on cannot be served.
        private func watch(_ socket: CurlSocket, input: Bool, output: Bool) -> Bool {
            let wanted = CurlSocket.Interest(input: input, output: output)
            guard socket.descriptor >= 0, wanted != socket.interest else { return true }
            let done = ep_socket_set_watch(
                epoll, socket.descriptor, input ? 1 : 0, output ? 1 : 0, socket.interest.isEmpty ? 0 : 1)
            guard done == 0 || wanted.isEmpty else { return false }
            owners[socket.descriptor] = wanted.isEmpty ? nil : ObjectIdentifier(socket)
            socket.interest = wanted
            return true
        }
    }
#endif
