#if canImport(WebKit) || os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit
#if os(Linux)
import WebKitStandIn
#else
import WebKit
#endif

/// WKURLSchemeHandler → the port's SchemeHandler, for one scheme registered when the view was made.
/// The handler can change (the container's slot); a task keeps the handler that started it.
///
/// The configuration (and so the web view, however long a host keeps it) retains this bridge, so it holds the
/// handler weakly: the engine holds it strongly, and an engine dropped without `close()` releases it.
@MainActor
final class SchemeHandlerBridge: NSObject, WKURLSchemeHandler {
    weak var handler: (any SchemeHandler)?
    // Open tasks only: a task leaves on finish, fail or stop, so its adapter and body are released.
    private var tasks: [ObjectIdentifier: WKSchemeTaskAdapter] = [:]
    // Tasks whose body is being read off the main thread; started when it is in, unless stopped first.
    private var reading: [ObjectIdentifier: any WKURLSchemeTask] = [:]

    var openTaskCount: Int { tasks.count + reading.count }

    func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask) {
        let key = ObjectIdentifier(urlSchemeTask)
        guard let handler else {
            // No handler set yet (or its engine is gone): fail it (allowed before a response), so the page
            // does not wait forever.
            WKEngine.logger.notice(
                "custom-scheme request \(urlSchemeTask.request.url?.absoluteString ?? "?") failed: no handler for its scheme; set one with setSchemeHandler(_:forScheme:) before loading, and keep the engine (or its container) alive while its view loads"
            )
            urlSchemeTask.didFailWithError(WKSchemeTaskAdapter.nsError(.notFound("no handler for this scheme yet")))
            return
        }
        let (request, stream) = WKSchemeTaskAdapter.engineRequest(
            urlSchemeTask.request, mayReadBody: handler.mayReadBody(of:))
        let limit = handler.maximumBodySize
        if let body = request.body, body.count > limit {
            // A form post's body, handed over whole: the same limit as a streamed one.
            let error = RequestBodyLimit.refuse(request, limit: limit, logger: WKEngine.logger)
            return urlSchemeTask.didFailWithError(WKSchemeTaskAdapter.nsError(error))
        }
        guard let stream else { return begin(urlSchemeTask, request: request, handler: handler) }
        // WebKit hands an upload over as a stream that fills as the page sends it: a large one read here would
        // block the UI. It is read on another thread, and the handler starts with the whole body.
        reading[key] = urlSchemeTask
        let body = BodyStreamHandOff(stream)
        DispatchQueue.global(qos: .userInitiated).async {
            let data = body.readAll(limit: limit)
            MainQueue.async { self.bodyRead(key, request: request, body: data, limit: limit) }
        }
    }

    /// `body` is nil when it was over `limit` and was not read to its end.
    private func bodyRead(_ key: ObjectIdentifier, request: EngineRequest, body: Data?, limit: Int) {
        // Stopped (or the view closed) while the body was read: WebKit must not hear of the task again.
        guard let task = reading.removeValue(forKey: key) else { return }
        guard let handler else {
            WKEngine.logger.notice(
                "custom-scheme request \(request.url.absoluteString) failed: its engine was released while the body was read; keep the engine (or its container) alive while its view loads"
            )
            task.didFailWithError(WKSchemeTaskAdapter.nsError(.notFound("no handler for this scheme any more")))
            return
        }
        guard let body else {
            task.didFailWithError(
                WKSchemeTaskAdapter.nsError(RequestBodyLimit.refuse(request, limit: limit, logger: WKEngine.logger)))
            return
        }
        var withBody = request
        withBody.body = body
        begin(task, request: withBody, handler: handler)
    }

    private func begin(_ task: any WKURLSchemeTask, request: EngineRequest, handler: any SchemeHandler) {
        let key = ObjectIdentifier(task)
        let adapter = WKSchemeTaskAdapter(task: task, request: request, handler: handler) { [weak self] in
            self?.tasks.removeValue(forKey: key)
        }
        tasks[key] = adapter
        handler.start(adapter)
    }

    func webView(_ webView: WKWebView, stop urlSchemeTask: any WKURLSchemeTask) {
        let key = ObjectIdentifier(urlSchemeTask)
        if reading.removeValue(forKey: key) != nil { return }
        guard let adapter = tasks.removeValue(forKey: key) else { return }
        if adapter.markStopped() { adapter.handler.stop(adapter) }
    }

    /// The view is closing: every open task is stopped for its handler, and never touched again.
    func stopAll() {
        reading.removeAll()
        let open = tasks.values
        tasks.removeAll()
        for adapter in open where adapter.markStopped() { adapter.handler.stop(adapter) }
    }
}

/// A request's body stream, handed from the main thread to the one thread that reads it and never touched on
/// the main thread again; that single hand-off is why it may cross threads.
final class BodyStreamHandOff: @unchecked Sendable {
    private let stream: InputStream
    init(_ stream: InputStream) { self.stream = stream }
    func readAll(limit: Int) -> Data? { WKSchemeTaskAdapter.readAll(stream, limit: limit) }
}

/// One WKURLSchemeTask behind the port's SchemeTask. WebKit raises an Objective-C exception for a call out of
/// order (data before a response, finishing without one, a response after data, anything after the task ended
/// or was stopped); `SchemeTaskOrder` turns each into a dropped call, or for a finish without a response a
/// failed request, logged and kept in ``violations``.
@MainActor
final class WKSchemeTaskAdapter: SchemeTask {
    nonisolated let request: EngineRequest
    let handler: any SchemeHandler
    private let task: any WKURLSchemeTask
    private var order = SchemeTaskOrder()
    private let onEnd: @MainActor () -> Void
    private(set) var violations: [SchemeTaskOrderViolation] = []

    /// `request` is the task's request as the port sees it, its body already read (``engineRequest(_:mayReadBody:)``
    /// and ``readAll(_:limit:)``, off the main thread).
    init(
        task: any WKURLSchemeTask, request: EngineRequest, handler: any SchemeHandler,
        onEnd: @escaping @MainActor () -> Void
    ) {
        self.task = task
        self.handler = handler
        self.onEnd = onEnd
        self.request = request
    }

    /// For a request with no body stream to read (tests, GETs): reads `httpBody` only, never a stream.
    convenience init(task: any WKURLSchemeTask, handler: any SchemeHandler, onEnd: @escaping @MainActor () -> Void) {
        let (request, _) = Self.engineRequest(task.request, mayReadBody: handler.mayReadBody(of:))
        self.init(task: task, request: request, handler: handler, onEnd: onEnd)
    }

    /// Whether the task was still open; from now on every call is dropped.
    func markStopped() -> Bool { order.stop() }

    func respond(_ response: SchemeResponse) {
        guard admit(.respond) else { return }
        guard
            let http = HTTPURLResponse(
                url: request.url, statusCode: response.statusCode, httpVersion: "HTTP/1.1",
                headerFields: response.headers)
        else {
            _ = order.admit(.fail)
            task.didFailWithError(Self.nsError(.failed("invalid response head")))
            onEnd()
            return
        }
        task.didReceive(http)
    }

    func send(_ data: Data) {
        guard admit(.send) else { return }
        task.didReceive(data)
    }

    func finish() {
        if let violation = order.admit(.finish) {
            record(violation)
            guard violation == .finishWithoutResponse else { return }
            // WebKit would raise; the page would otherwise wait forever. A failure is allowed before a response.
            _ = order.admit(.fail)
            task.didFailWithError(Self.nsError(.failed(violation.description)))
            onEnd()
            return
        }
        task.didFinish()
        onEnd()
    }

    func fail(_ error: SchemeTaskError) {
        guard admit(.fail) else { return }
        task.didFailWithError(Self.nsError(error))
        onEnd()
    }

    private func admit(_ call: SchemeTaskOrder.Call) -> Bool {
        guard let violation = order.admit(call) else { return true }
        record(violation)
        return false
    }

    private func record(_ violation: SchemeTaskOrderViolation) {
        violations.append(violation)
        // A stopped task still hears from handlers that had work in flight: expected, not worth a warning.
        if case .afterStop = violation { return }
        WKEngine.logger.warning(
            "scheme task \(request.url.absoluteString): \(violation.description)")
    }

    nonisolated static func nsError(_ error: SchemeTaskError) -> NSError {
        let code =
            switch error {
            case .notFound: NSURLErrorFileDoesNotExist
            case .forbidden: NSURLErrorNoPermissionsToReadFile
            case .failed: NSURLErrorCannotLoadFromNetwork
            }
        return NSError(
            domain: NSURLErrorDomain, code: code, userInfo: [NSLocalizedDescriptionKey: error.description])
    }

    /// The request as the port sees it, and the body stream still to be read, if any. WebKit hands XHR and
    /// fetch bodies over as `httpBodyStream` (and form posts as `httpBody`); the handler is asked first whether
    /// the body may be read at all (`SchemeHandler/mayReadBody(of:)`), as on WebKitGTK. The stream is not read
    /// here: the caller reads it off the main thread (``readAll(_:limit:)``) and sets `body`.
    nonisolated static func engineRequest(_ urlRequest: URLRequest, mayReadBody: (EngineRequest) -> Bool)
        -> (request: EngineRequest, bodyStream: InputStream?)
    {
        let method = urlRequest.httpMethod ?? "GET"
        var request = EngineRequest(
            url: urlRequest.url ?? URL(fileURLWithPath: "/"), method: method,
            headers: (urlRequest.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        if method == "GET" || method == "HEAD" { return (request, nil) }
        guard urlRequest.httpBody != nil || urlRequest.httpBodyStream != nil else { return (request, nil) }
        guard mayReadBody(request) else {
            request.bodyWithheld = true
            return (request, nil)
        }
        if let body = urlRequest.httpBody {
            request.body = body
            return (request, nil)
        }
        return (request, urlRequest.httpBodyStream)
    }

    /// Reads a body stream to its end, or to `limit` bytes (nil: over it). It fills as the page uploads, so a
    /// read may wait: never call this on the main thread.
    nonisolated static func readAll(_ stream: InputStream, limit: Int) -> Data? {
        stream.open()
        defer { stream.close() }
        return RequestBodyLimit.collect(limit: limit) { buffer in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            return stream.read(base, maxLength: buffer.count)
        }
    }
}
#endif
