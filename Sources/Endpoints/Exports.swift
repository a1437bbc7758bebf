// `import Endpoints` alone is enough to use the library on every platform.
//
// The public API is written in Foundation's types (`URL`, `URLRequest`, `Data`, `URLSession`),
// and on Linux `URLSession` and `URLRequest` live in FoundationNetworking: without these
// re-exports a file that imports only Endpoints fails there with "type 'URLSession' (aka
// 'AnyObject') has no member 'shared'".
@_exported import Foundation

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif
