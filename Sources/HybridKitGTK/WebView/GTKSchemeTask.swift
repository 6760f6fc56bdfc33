#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridKit

/// One request to a custom scheme, answered through the port's `SchemeTask` calls.
///
/// A response finished in the same turn it was started (the common case: a file from a package) goes out
/// as one in-memory stream. A response still open at the end of the turn switches to a pipe whose read end
/// WebKit consumes asynchronously, so large or slow bodies stream instead of being buffered whole.
@GTKActor
final class GTKSchemeTask: SchemeTask {
    nonisolated let request: EngineRequest
    /// The body was over the handler's limit and was not read (``RequestBodyLimit``): fail the task unstarted.
    nonisolated let bodyOverLimit: Bool
    var onStop: ((GTKSchemeTask) -> Void)?

    private var uriRequest: UnsafeMutablePointer<WebKitURISchemeRequest>?
    private var head: SchemeResponse?
    private var buffered = Data()
    private var pipe: SchemePipeWriter?
    private let onEnd: (GTKSchemeTask) -> Void
    /// The port's call order (shared with the WKWebView adapter): what WebKit would refuse never reaches it.
    private var order = SchemeTaskOrder()
    /// Calls the order refused, for tests and diagnostics.
    private(set) var violations: [SchemeTaskOrderViolation] = []

    init(
        request: UnsafeMutablePointer<WebKitURISchemeRequest>, mayReadBody: (EngineRequest) -> Bool,
        bodyLimit: Int, onEnd: @escaping (GTKSchemeTask) -> Void
    ) {
        uriRequest = request
        g_object_ref(request)
        (self.request, bodyOverLimit) = GTKSchemeTask.readRequest(
            request, mayReadBody: mayReadBody, bodyLimit: bodyLimit)
        self.onEnd = onEnd
    }

    isolated deinit {
        if let uriRequest { g_object_unref(uriRequest) }
    }

    func respond(_ response: SchemeResponse) {
        guard admit(.respond), uriRequest != nil else { return }
        head = response
        // Give the handler the rest of this turn to finish; only then start streaming.
        Task { @GTKActor [weak self] in self?.startStreamingIfOpen() }
    }

    func send(_ data: Data) {
        guard admit(.send), uriRequest != nil || pipe != nil else { return }
        // A whole body sent at once (the common case) is kept, not copied: `Data` shares its storage, so a
        // 10 MB answer is one buffer until WebKit's copy, not two.
        if let pipe {
            pipe.write(data)
        } else if buffered.isEmpty {
            buffered = data
        } else {
            buffered.append(data)
        }
    }

    func finish() {
        if let violation = order.admit(.finish) {
            violations.append(violation)
            // Finishing without a response would leave the page waiting forever: fail the request instead.
            if violation == .finishWithoutResponse {
                _ = order.admit(.fail)
                if let request = uriRequest { GTKSchemeTask.finish(request, error: .failed(violation.description)) }
                end()
            }
            return
        }
        if let pipe {
            pipe.close()
            self.pipe = nil
            end()
            return
        }
        guard let request = uriRequest, let head else { return }
        let bytes = buffered.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        let stream = g_memory_input_stream_new_from_bytes(bytes)
        g_bytes_unref(bytes)
        deliver(head, stream: stream, length: Int64(buffered.count), to: request)
        buffered = Data()
        end()
    }

    func fail(_ error: SchemeTaskError) {
        guard admit(.fail) else { return }
        if let pipe {
            // Headers are out: the only signal left is a truncated body.
            pipe.close()
            self.pipe = nil
        } else if let request = uriRequest {
            GTKSchemeTask.finish(request, error: error)
        }
        end()
    }

    /// The view closed or navigated away: stop reading, tell the handler.
    func cancel() {
        guard uriRequest != nil || pipe != nil else { return }
        order.stop()
        pipe?.close()
        pipe = nil
        if let request = uriRequest {
            GTKSchemeTask.finish(request, error: .failed("cancelled"))
        }
        onStop?(self)
        end()
    }

    /// Whether the order allows `call`; a refused call is recorded and dropped.
    private func admit(_ call: SchemeTaskOrder.Call) -> Bool {
        guard let violation = order.admit(call) else { return true }
        violations.append(violation)
        return false
    }

    private func startStreamingIfOpen() {
        guard let request = uriRequest, let head, pipe == nil else { return }
        var fds: [Int32] = [0, 0]
        guard CWebKitGTK.pipe(&fds) == 0 else {
            GTKSchemeTask.finish(request, error: .failed("cannot create pipe: errno \(errno)"))
            end()
            return
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let stream = g_unix_input_stream_new(fds[0], 1)
        deliver(head, stream: stream, length: head.expectedLength.map(Int64.init) ?? -1, to: request)
        let writer = SchemePipeWriter(fd: fds[1]) { [weak self] in
            Task { @GTKActor in
                guard let self else { return }
                self.order.stop()
                self.pipe = nil
                self.onStop?(self)
                self.end()
            }
        }
        pipe = writer
        if !buffered.isEmpty { writer.write(buffered) }
        buffered = Data()
    }

    private func deliver(
        _ head: SchemeResponse, stream: UnsafeMutablePointer<GInputStream>?, length: Int64,
        to request: UnsafeMutablePointer<WebKitURISchemeRequest>
    ) {
        let response = webkit_uri_scheme_response_new(stream, gint64(length))
        webkit_uri_scheme_response_set_status(response, guint(head.statusCode), head.reasonPhrase)
        let headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE)
        for (name, value) in head.headers {
            soup_message_headers_append(headers, name, value)
            if name.caseInsensitiveCompare("Content-Type") == .orderedSame {
                webkit_uri_scheme_response_set_content_type(response, value)
            }
        }
        webkit_uri_scheme_response_set_http_headers(response, headers)
        webkit_uri_scheme_request_finish_with_response(request, response)
        g_object_unref(response)
        g_object_unref(stream)
        g_object_unref(request)
        uriRequest = nil
    }

    private func end() {
        if let request = uriRequest {
            g_object_unref(request)
            uriRequest = nil
        }
        onEnd(self)
    }

    static func finish(_ request: UnsafeMutablePointer<WebKitURISchemeRequest>, error: SchemeTaskError) {
        let code =
            switch error {
            case .notFound: G_IO_ERROR_NOT_FOUND
            case .forbidden: G_IO_ERROR_PERMISSION_DENIED
            case .failed: G_IO_ERROR_FAILED
            }
        let gerror = g_error_new_literal(g_io_error_quark(), gint(code.rawValue), error.description)
        webkit_uri_scheme_request_finish_error(request, gerror)
        g_error_free(gerror)
    }

    private static func readRequest(
        _ request: UnsafeMutablePointer<WebKitURISchemeRequest>, mayReadBody: (EngineRequest) -> Bool,
        bodyLimit: Int
    ) -> (EngineRequest, bodyOverLimit: Bool) {
        let uri = borrowGString(webkit_uri_scheme_request_get_uri(request)) ?? ""
        let url = URL(string: uri) ?? URL(fileURLWithPath: "/")
        let method = borrowGString(webkit_uri_scheme_request_get_http_method(request)) ?? "GET"
        var headers: [(name: String, value: String)] = []
        if let soupHeaders = webkit_uri_scheme_request_get_http_headers(request) {
            var iterator = SoupMessageHeadersIter()
            soup_message_headers_iter_init(&iterator, soupHeaders)
            var name: UnsafePointer<CChar>?
            var value: UnsafePointer<CChar>?
            while soup_message_headers_iter_next(&iterator, &name, &value) != 0 {
                if let name, let value { headers.append((String(cString: name), String(cString: value))) }
            }
        }
        var result = EngineRequest(url: url, method: method, headers: headers)
        if method == "GET" || method == "HEAD" { return (result, false) }
        // Asked before reading: reading a Blob-backed body crashes the UI process (see SchemeHandler.mayReadBody).
        guard mayReadBody(result) else {
            result.bodyWithheld = true
            return (result, false)
        }
        guard let stream = webkit_uri_scheme_request_get_http_body(request) else { return (result, false) }
        defer { g_object_unref(stream) }
        // The body is in the UI process already (WebKitGTK hands it over whole), so this read does not wait.
        guard
            let body = RequestBodyLimit.collect(
                limit: bodyLimit,
                read: { Int(g_input_stream_read(stream, $0.baseAddress, gsize($0.count), nil, nil)) })
        else { return (result, true) }
        result.body = body
        return (result, false)
    }
}

/// Writes a streamed scheme response into a pipe from a background queue, so a slow reader never blocks
/// GTK's thread. Reports a reader that went away (EPIPE) once.
final class SchemePipeWriter: Sendable {
    private let fd: Int32
    private let queue = DispatchQueue(label: "hybrid.scheme-pipe")
    private let onReaderGone: @Sendable () -> Void

    init(fd: Int32, onReaderGone: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.onReaderGone = onReaderGone
    }

    func write(_ data: Data) {
        queue.async { [fd, onReaderGone] in
            let ok = data.withUnsafeBytes { raw -> Bool in
                guard let base = raw.baseAddress else { return true }
                var offset = 0
                while offset < raw.count {
                    let written = Foundation.write(fd, base.advanced(by: offset), raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += written
                }
                return true
            }
            if !ok { onReaderGone() }
        }
    }

    func close() {
        queue.async { [fd] in _ = Foundation.close(fd) }
    }
}
#endif
