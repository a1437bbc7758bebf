// endpoints-cache-proxy: a reverse proxy that sends every request through an `EndpointClient`
// with an `HTTPCache`, for the http-tests/cache-tests suite (scripts/cache-tests.sh).
//
//     endpoints-cache-proxy --origin http://127.0.0.1:8000 [--port 0]
//
// It prints `listening on PORT` once it accepts connections, and runs until killed.
import Endpoints
import EndpointsTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
guard let origin = option("--origin").flatMap(URL.init(string:)) else {
    FileHandle.standardError.write(Data("usage: endpoints-cache-proxy --origin URL [--port N]\n".utf8))
    exit(2)
}
let port = option("--port").flatMap(UInt16.init) ?? 0

let proxy = CacheProxy(origin: origin)
let server = try TestServer(port: port)
server.route("/*") { request in await proxy.forward(request) }
FileHandle.standardOutput.write(Data("listening on \(server.port)\n".utf8))
dispatchMain()
