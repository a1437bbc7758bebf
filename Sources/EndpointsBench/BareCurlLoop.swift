#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation

    /// The floor of any libcurl transport: `shared/tools/curl-floor.c` in Swift, through the same
    /// `CEndpointsCurl` shim and the same loaded libcurl as `CurlTransport`, with no pipeline, no
    /// continuation, no thread hop and no decoding.
    ///
    /// One easy handle per request in flight, each re-added as soon as its transfer ends; the loop
    /// runs on the calling thread, `curl_multi_perform` then `curl_multi_poll`, as the C loop does.
    /// Each body goes into a fixed buffer of its handle's; a transfer fails unless it ends with
    /// `CURLE_OK`, status 200 and a body. `CURLOPT_NOSIGNAL` is set, as the transport sets it (the
    /// C loop leaves it off, which only adds libcurl's SIGPIPE handling to each call).
    final class BareCurlLoop {
        private let multi: OpaquePointer
        private var handles: [OpaquePointer] = []
        /// Which handle is which, to find its body buffer.
        private var slots: [OpaquePointer: Int] = [:]
        /// Per handle: the length so far, then `bodyCapacity` bytes.
        private let bodies: UnsafeMutableRawPointer
        private let headers: OpaquePointer?
        private static let bodyCapacity = 4096
        private static let slotSize = MemoryLayout<Int>.stride + bodyCapacity

        /// Where a transfer writes its body: into its slot, as far as it fits.
        private static let sink: ep_data_callback = { buffer, size, count, context in
            let length = size * count
            guard let buffer, let context else { return length }
            let used = context.load(as: Int.self)
            if used + length < BareCurlLoop.bodyCapacity {
                (context + MemoryLayout<Int>.stride + used).copyMemory(from: buffer, byteCount: length)
                context.storeBytes(of: used + length, as: Int.self)
            }
            return length
        }

        struct Unavailable: Error, CustomStringConvertible {
            let description: String
        }

        /// A loop of `inFlight` handles for GETs of `url`, at most `inFlight` connections to its host.
        init(url: URL, inFlight: Int) throws {
            guard ep_curl_load() == 0 else {
                throw Unavailable(description: ep_curl_load_error().map { String(cString: $0) } ?? "libcurl")
            }
            guard let multi = ep_multi_init() else { throw Unavailable(description: "curl_multi_init failed") }
            self.multi = multi
            _ = ep_multi_setopt_long(multi, Int32(EP_CURLMOPT_MAX_HOST_CONNECTIONS), inFlight)
            headers = ep_slist_append(nil, "Accept: application/json")
            bodies = .allocate(byteCount: Self.slotSize * inFlight, alignment: MemoryLayout<Int>.alignment)
            for slot in 0..<inFlight {
                guard let easy = ep_easy_init() else { throw Unavailable(description: "curl_easy_init failed") }
                _ = url.absoluteString.withCString { ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_URL), $0) }
                _ = ep_easy_setopt_long(easy, Int32(EP_CURLOPT_NOSIGNAL), 1)
                _ = ep_easy_setopt_data_callback(easy, Int32(EP_CURLOPT_WRITEFUNCTION), Self.sink)
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_WRITEDATA), bodies + slot * Self.slotSize)
                _ = ep_easy_setopt_pointer(easy, Int32(EP_CURLOPT_HTTPHEADER), UnsafeRawPointer(headers))
                handles.append(easy)
                slots[easy] = slot
            }
        }

        deinit {
            for easy in handles { ep_easy_cleanup(easy) }
            _ = ep_multi_cleanup(multi)
            ep_slist_free_all(headers)
            bodies.deallocate()
        }

        /// Sends `count` GETs, as many at once as the loop has handles; returns how many failed.
        func run(count: Int) -> Int {
            var started = 0
            var done = 0
            var failures = 0
            for easy in handles where started < count {
                reset(easy)
                _ = ep_multi_add_handle(multi, easy)
                started += 1
            }
            while done < count {
                var running: Int32 = 0
                _ = ep_multi_perform(multi, &running)
                var finished: OpaquePointer?
                var code: Int32 = 0
                while ep_multi_next_done(multi, &finished, &code) == 1, let easy = finished {
                    var status = 0
                    _ = ep_easy_getinfo_long(easy, Int32(EP_CURLINFO_RESPONSE_CODE), &status)
                    if code != EP_CURLE_OK || status != 200 || bodyLength(easy) == 0 { failures += 1 }
                    done += 1
                    _ = ep_multi_remove_handle(multi, easy)
                    if started < count {
                        reset(easy)
                        _ = ep_multi_add_handle(multi, easy)
                        started += 1
                    }
                }
                if done < count {
                    var ready: Int32 = 0
                    _ = ep_multi_poll(multi, nil, 0, 1000, &ready)
                }
            }
            return failures
        }

        private func slot(_ easy: OpaquePointer) -> UnsafeMutableRawPointer {
            bodies + slots[easy]! * Self.slotSize
        }

        private func reset(_ easy: OpaquePointer) { slot(easy).storeBytes(of: 0, as: Int.self) }
        private func bodyLength(_ easy: OpaquePointer) -> Int { slot(easy).load(as: Int.self) }
    }
#endif
