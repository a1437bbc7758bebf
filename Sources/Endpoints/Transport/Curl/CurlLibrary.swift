#if canImport(FoundationNetworking)
    import CEndpointsCurl
    import Foundation

    /// libcurl as this process loaded it: whether it could be, and what its build supports.
    ///
    /// The library is `libcurl.so.4`, which FoundationNetworking itself links, so it is on every
    /// machine that runs Swift on Linux; the package declares the parts of its ABI it uses (the
    /// `CEndpointsCurl` target) and needs no curl headers. Features are asked of the build at run
    /// time (`curl_version_info`), never assumed from one distribution's.
    struct CurlLibrary: Sendable {
        /// The version, e.g. `7.88.1`.
        let version: String
        /// The version as a number, e.g. `0x075801`.
        let versionNumber: UInt32
        /// Whether HTTP/2 is built in (nghttp2).
        let supportsHTTP2: Bool
        /// Whether TLS, and so `https`, is built in.
        let supportsHTTPS: Bool
        /// Whether `CURLOPT_CAINFO_BLOB` and the other blob options exist (7.77 on).
        let supportsBlobs: Bool
        /// Whether `CURLOPT_PROTOCOLS_STR` exists (7.85 on); older builds are limited to http and
        /// https through the redirect policy, which follows no other scheme.
        let supportsProtocolNames: Bool

        /// The library, loaded on first use; the reason it could not be otherwise.
        static let loaded: Result<CurlLibrary, CurlUnavailable> = load()

        private static func load() -> Result<CurlLibrary, CurlUnavailable> {
            guard ep_curl_load() == 0 else {
                let reason = ep_curl_load_error().map { String(cString: $0) } ?? "libcurl could not be loaded"
                return .failure(CurlUnavailable(reason: reason))
            }
            let features = ep_curl_features()
            let number = ep_curl_version_num()
            return .success(
                CurlLibrary(
                    version: String(cString: ep_curl_version()),
                    versionNumber: number,
                    supportsHTTP2: features & Int32(EP_CURL_VERSION_HTTP2) != 0,
                    supportsHTTPS: features & Int32(EP_CURL_VERSION_SSL) != 0
                        && ep_curl_supports_protocol("https") != 0,
                    supportsBlobs: number >= 0x07_4D_00,
                    supportsProtocolNames: number >= 0x07_55_00
                ))
        }
    }

    /// libcurl could not be loaded, or is too old (7.68 is the oldest the transport drives), so a
    /// ``CurlTransport`` cannot be made; `EndpointClient()` then sends with `URLSession` instead.
    ///
    /// ```swift
    /// do {
    ///     let transport = try CurlTransport()
    /// } catch {
    ///     print(error)   // "libcurl is unavailable: libcurl.so.4 could not be loaded"
    /// }
    /// ```
    public struct CurlUnavailable: Error, Sendable, CustomStringConvertible {
        /// Why: the library is missing, lacks a function, or is older than 7.68.
        public let reason: String

        /// A sentence naming the reason.
        public var description: String { "libcurl is unavailable: \(reason)" }
    }
#endif
