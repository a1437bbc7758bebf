import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One streamed data task: a `URLSessionDataDelegate` that hands over the response head as soon
/// as it arrives and then feeds the body into a bounded ``BodyBuffer``, on Linux and Apple
/// platforms alike.
///
/// On Apple platforms it is the task's own delegate (`task.delegate`), on the caller's session. On
/// Linux, corelibs hands a task's bytes only to the delegate of its session, so the stream runs on
/// a session of its own made from the caller's configuration (cookies, headers, proxy settings
/// and timeouts carry over; its connections are not shared with the caller's session).
///
/// - Backpressure (Apple platforms): when the reader falls more than the buffer's limit behind,
///   the task is suspended, and resumed when the reader has drained half of it. On Linux the task
///   keeps running, because corelibs' `suspend()` of a running data task races with its own
///   stop and crashes the process; the buffer then holds whatever the reader has not read yet
///   (a few MB for a download to a file on loopback, measured), so memory is bounded there only
///   by a reader that keeps up.
/// - Idle timeout: when no byte arrives for the request's `timeoutInterval` (while the task is not
///   suspended for backpressure), the task is cancelled and the head or the body fails with
///   `URLError.timedOut`. This is enforced here, fractions of a second included, because corelibs
///   truncates fractional timeouts.
/// - Cancellation: cancelling the task waiting for the head, or the reader of the body, cancels
///   the data task at once.
/// - A connection dropped mid-body ends the body with `URLError.networkConnectionLost` on every
///   platform, chunked or under a `Content-Length` (corelibs' -1 is mapped, see
///   `URLError.partialTransfer(_:failingURL:underlying:)`); other failures with the `URLError`
///   URLSession reports.
/// - Redirects and authentication challenges follow the library's ``RedirectPolicy`` through a
///   ``RedirectGuard``, as for buffered requests, including the Linux resend of a 307/308 with a body.
/// - Downloads (Linux): for a download call that wants no progress (the context's
///   ``DownloadSink``) the transfer is a download task, which corelibs writes to a file on its own
///   thread, so no chunk waits in memory. corelibs hands a download task its response only at the
///   end, so the head is delivered then: an accepted file goes to the download call, any other body
///   into the buffer. With a whole-second timeout there is no delegate for the bytes at all (a
///   completion-handler task, corelibs' leanest); with a fractional one, the delegate's write
///   reports feed the watchdog. A download with progress is a data task: its status is known from
///   the head, so the call reports the accepted body as it writes it.
///
/// Its state is a ``TransferState`` (with the file of a Linux download beside it), the same state
/// machine as ``DataTaskCall``'s: the idle watchdog, the redirect resend and how a finished task
/// maps to an outcome are decided there.
final class StreamingDataTask: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    private typealias Head = CheckedContinuation<(ResponseBody, HTTPURLResponse), any Error>

    private struct State {
        /// The call's life: its task, who waits for the head, stops, the watchdog's clock.
        var transfer = TransferState<URLSessionTask, Head>(now: DispatchTime.now().uptimeNanoseconds)
        /// Linux downloads: the file corelibs wrote the body to.
        var downloaded: URL?
        /// The body, made with the call and handed over with the head (see
        /// ``ResponseBody/init(buffer:)`` for why it is made here).
        var body: ResponseBody?
    }

    private let request: URLRequest
    private let redirects: RedirectGuard
    private let buffer: BodyBuffer
    private let state: Locked<State>
    private let timeout: TimeInterval
    /// An upload's file, sent with an upload task.
    private let upload: UploadSource?
    /// Linux: the body of a download call that wants no progress is received with a download task
    /// (see ``DownloadSink``).
    private let download: DownloadSink?
    /// Linux: a download (which has no progress to report) with a whole-second timeout (which
    /// corelibs enforces itself as an idle timeout): a completion-handler download task, with the
    /// redirect guard as its delegate, and no watchdog, since no write is reported to watch.
    private let quietDownload: Bool

    /// A task for `request`, carrying what its context says besides the head (an upload's file, a
    /// download, whether redirects are followed); the context's recorder hears of its redirect hops.
    init(request: URLRequest, context: RequestContext, bufferLimit: Int) {
        let transfer = context.transfer
        self.request = request
        self.upload = transfer.upload
        self.redirects = RedirectGuard(
            original: request, credentialHeaders: context.credentialHeaders,
            currentCredentials: context.currentCredentials, recorder: context.recorder,
            follows: context.followsRedirects)
        let buffer = BodyBuffer(limit: bufferLimit)
        self.buffer = buffer
        self.state = Locked(State(body: ResponseBody(buffer: buffer)))
        let timeout = request.timeoutInterval
        self.timeout = timeout
        #if canImport(FoundationNetworking)
            // With progress, a data task: a download task's status is unknown until its body is
            // complete, so its progress could be an error page's.
            let download = transfer.upload == nil ? transfer.download.flatMap { $0.wantsProgress ? nil : $0 } : nil
        #else
            let download: DownloadSink? = nil
        #endif
        self.download = download
        self.quietDownload = download != nil && timeout.rounded() == timeout
        super.init()
        buffer.setHooks(
            BodyBuffer.Hooks(
                pause: { [weak self] in self?.setPaused(true) },
                resume: { [weak self] in self?.setPaused(false) },
                terminate: { [weak self] in self?.stop(with: CancellationError()) }
            ))
    }

    /// Sends the request on `session`; `continuation` gets the body and the head, or the failure.
    func start(on session: URLSession, continuation: CheckedContinuation<(ResponseBody, HTTPURLResponse), any Error>) {
        if case .fail(let head, let error) = state.withLock({ $0.transfer.start(continuation) }) {
            // Stopped before it started: nothing is sent.
            head.resume(throwing: error)
            return
        }
        if timeout > 0, !quietDownload { scheduleWatchdog(after: timeout) }
        send(request, on: session)
    }

    private func send(_ request: URLRequest, on session: URLSession) {
        // Stopped (cancelled, timed out) before this send: the failure is delivered; send nothing.
        guard state.withLock({ $0.transfer.shouldSend }) else { return }
        #if canImport(FoundationNetworking)
            // corelibs delivers a task's data only to its session's delegate (a per-task delegate
            // gets the head and the completion, never the bytes), so each stream gets a session of
            // its own, with the caller's configuration, invalidated once its task is done.
            let streamSession = URLSession(configuration: session.configuration, delegate: self, delegateQueue: nil)
            var request = request
            // corelibs truncates a fractional timeout (0.5 s would time out at once); the
            // watchdog here enforces the real one.
            if request.timeoutInterval > 0 { request.timeoutInterval = request.timeoutInterval.rounded(.up) }
            let task = makeTask(request, on: streamSession)
            defer { streamSession.finishTasksAndInvalidate() }
        #else
            let task = makeTask(request, on: session)
            task.delegate = self
        #endif
        switch state.withLock({ $0.transfer.sent(task, now: DispatchTime.now().uptimeNanoseconds) }) {
        case .resume(let task):
            task.resume()
        case .cancel(let task):
            // Stopped meanwhile: corelibs ends a task cancelled before it resumes without sending it.
            task.cancel()
            task.resume()
        }
    }

    private func makeTask(_ request: URLRequest, on session: URLSession) -> URLSessionTask {
        var request = URLSessionTransport.withLowercaseScheme(request)
        if quietDownload {
            let task = session.downloadTask(with: request) { [weak self] location, _, error in
                self?.quietDownloadEnded(at: location, error: error, session: session)
            }
            task.delegate = redirects
            return task
        }
        if let download {
            download.beginSend()
            return session.downloadTask(with: request)
        }
        guard let upload else { return session.dataTask(with: request) }
        request.httpBodyStream = nil
        return session.uploadTask(with: request, fromFile: upload.file)
    }

    /// Cancels the transfer: the waiting head fails with `CancellationError`.
    func cancel() {
        stop(with: CancellationError())
    }

    /// Stops the transfer with `error`, which the head or the body reports.
    private func stop(with error: any Error) {
        guard case .stop(let task, let head, let error) = state.withLock({ $0.transfer.stop(with: error) }) else {
            return
        }
        task?.cancel()
        head?.resume(throwing: error)
        buffer.finish(throwing: error)
    }

    private func setPaused(_ paused: Bool) {
        let action = state.withLock { $0.transfer.setPaused(paused, now: DispatchTime.now().uptimeNanoseconds) }
        #if canImport(FoundationNetworking)
            // corelibs' suspend() of a running data task stops it asynchronously and crashes
            // (NativeProtocol.swift:69, fatalError) when resume() comes first, and a suspended
            // transfer restarts its buffers: the stream is left running and the buffer holds what
            // the reader has not read yet.
            _ = action
        #else
            switch action {
            case .none: break
            case .suspend(let task): task.suspend()
            case .resume(let task): task.resume()
            }
        #endif
    }

    // MARK: Idle timeout

    private func scheduleWatchdog(after seconds: TimeInterval) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
            self?.checkIdle()
        }
    }

    private func checkIdle() {
        let now = DispatchTime.now().uptimeNanoseconds
        switch state.withLock({ $0.transfer.watchdog(now: now, timeout: timeout) }) {
        case .none:
            break
        case .check(let seconds):
            scheduleWatchdog(after: seconds)
        case .expire:
            stop(with: URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: request.url as Any]))
        }
    }

    private func noteActivity() {
        state.withLock { $0.transfer.noteActivity(now: DispatchTime.now().uptimeNanoseconds) }
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let response = response as? HTTPURLResponse else {
            noteActivity()
            completionHandler(.allow)
            return
        }
        // Not for a 307/308 the library resends itself (Linux): that response is not the answer.
        let head = state.withLock { state in
            state.transfer.headArrived(now: DispatchTime.now().uptimeNanoseconds).map { ($0, state.body.take()) }
        }
        if let (head, body) = head, let body { head.resume(returning: (body, response)) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let streaming = state.withLock { state in
            state.transfer.noteActivity(now: DispatchTime.now().uptimeNanoseconds)
            return state.transfer.isStreaming
        }
        guard streaming else { return }
        buffer.append(data)
    }

    // MARK: URLSessionDownloadDelegate (Linux downloads)

    /// corelibs wrote a chunk to its file: the transfer is alive. (A download task here has no
    /// progress to report: one that wants progress is a data task.)
    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        noteActivity()
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        state.withLock { $0.downloaded = location }
    }

    /// A quiet download's completion handler: it ends as a delegate's task would.
    private func quietDownloadEnded(at location: URL?, error: (any Error)?, session: URLSession) {
        let task = state.withLock { state in
            if error == nil { state.downloaded = location }
            return state.transfer.task
        }
        guard let task else {
            if let location { try? FileManager.default.removeItem(at: location) }
            return
        }
        urlSession(session, task: task, didCompleteWithError: error)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let next = error == nil ? redirects.takeResend() : nil
        typealias Completion = (TransferState<URLSessionTask, Head>.CompletionAction, URL?, ResponseBody?)
        let (action, downloaded, body) = state.withLock { state -> Completion in
            defer { state.downloaded = nil }
            let action = state.transfer.completed(
                error: error, response: task.response, resend: next != nil, exceededHops: redirects.exceededHops,
                refusedChallenge: redirects.refusedChallenge, failingURL: request.url)
            // The body goes with a head that is still to be handed over.
            guard case .answer(.some, _) = action else { return (action, state.downloaded, nil) }
            return (action, state.downloaded, state.body.take())
        }
        switch action {
        case .resend:
            // The redirect's body, if corelibs wrote one, is not the answer.
            if let downloaded { try? FileManager.default.removeItem(at: downloaded) }
            if let next { send(next, on: session) }
        case .discard:
            if let downloaded { try? FileManager.default.removeItem(at: downloaded) }
        case .fail(let head, let error):
            if let downloaded { try? FileManager.default.removeItem(at: downloaded) }
            head?.resume(throwing: error)
            buffer.finish(throwing: error)
        case .answer(let head, let response):
            if let head, let body { head.resume(returning: (body, response)) }
            if let downloaded {
                if let download {
                    handOver(downloaded, response: response, to: download)
                } else {
                    try? FileManager.default.removeItem(at: downloaded)
                }
            }
            buffer.finish()
        }
    }

    /// A download task's file: an accepted body (the endpoint's `acceptableStatusCodes`) goes to
    /// the download call as the file; any other body (an error response to decode) is read into
    /// the body like a streamed one.
    private func handOver(_ file: URL, response: URLResponse?, to download: DownloadSink) {
        if download.accepts(response) {
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue
            redirects.recorder?.bodySpooled(bytes: size ?? 0)
            download.spool(file)
            return
        }
        defer { try? FileManager.default.removeItem(at: file) }
        if let data = try? Data(contentsOf: file) { buffer.append(data) }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        noteActivity()
        let total = totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil
        upload?.progress?(TransferProgress(completedBytes: totalBytesSent, totalBytes: total))
    }

    // MARK: Redirects and challenges, as for buffered requests

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        redirects.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request) {
            [weak self] next in
            // The guard refuses a redirect either to stop (too many hops) or to resend it itself.
            if next == nil, let self, !self.redirects.exceededHops {
                self.state.withLock { $0.transfer.resendAhead() }
            }
            completionHandler(next)
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        redirects.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
    }
}
