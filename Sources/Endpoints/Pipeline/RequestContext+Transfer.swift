import Foundation

extension RequestContext {
    /// The file the request's body is sent from, for an upload from a file (`upload(_:fromFile:)`,
    /// or a sequence upload, spooled to a file first); `nil` otherwise.
    ///
    /// The request's `httpBodyStream` reads the same file, opened afresh for each send, so a
    /// transport that sends only the `URLRequest` uploads it too; one that can send a file by
    /// itself (``URLSessionTransport`` uses an upload task) sends it from here, with the request's
    /// `Content-Length`, and reports how much it sent to ``uploadProgress``.
    ///
    /// ```swift
    /// struct MyTransport: HTTPTransport {
    ///     func send(_ request: URLRequest, context: RequestContext) async throws -> (Data, HTTPURLResponse) {
    ///         if let file = context.uploadFile { return try await myClient.upload(request, from: file) }
    ///         return try await myClient.send(request)
    ///     }
    /// }
    /// ```
    public var uploadFile: URL? { transfer.upload?.file }

    /// Where to report how much of ``uploadFile`` was sent: the upload call's progress closure,
    /// or `nil` when its caller wants none.
    public var uploadProgress: (@Sendable (TransferProgress) -> Void)? { transfer.upload?.progress }

    /// The file a download call replaces with the response body once it is complete; `nil` when
    /// the request is not a download.
    ///
    /// A transport need not write it: the download call writes the body it streams back, and
    /// reports its progress as it writes. It tells a transport that the body is wanted in a file,
    /// not in memory. On Linux, when the caller wants no progress, ``URLSessionTransport`` then
    /// receives an accepted body into a file of its own, which the call moves into place.
    public var downloadDestination: URL? { transfer.download?.destination }
}
