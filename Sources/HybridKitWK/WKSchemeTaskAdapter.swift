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
    @MainActor
    final class SchemeHandlerBridge: NSObject, WKURLSchemeHandler {
        var handler: (any SchemeHandler)?
        // Open tasks only: a task leaves on finish, fail or stop, so its adapter and body are released.
        private var tasks: [ObjectIdentifier: WKSchemeTaskAdapter] = [:]

        var openTaskCount: Int { tasks.count }

        func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask) {
            let key = ObjectIdentifier(urlSchemeTask)
            guard let handler else {
                // No handler set yet: fail it (allowed before a response), so the page does not wait forever.
                urlSchemeTask.didFailWithError(WKSchemeTaskAdapter.nsError(.notFound("no handler for this scheme yet")))
                return
            }
            let adapter = WKSchemeTaskAdapter(task: urlSchemeTask, handler: handler) { [weak self] in
                self?.tasks.removeValue(forKey: key)
            }
            tasks[key] = adapter
            handler.start(adapter)
        }

        func webView(_ webView: WKWebView, stop urlSchemeTask: any WKURLSchemeTask) {
            guard let adapter = tasks.removeValue(forKey: ObjectIdentifier(urlSchemeTask)) else { return }
            if adapter.markStopped() { adapter.handler.stop(adapter) }
        }

        /// The view is closing: every open task is stopped for its handler, and never touched again.
        func stopAll() {
            let open = tasks.values
            tasks.removeAll()
            for adapter in open where adapter.markStopped() { adapter.handler.stop(adapter) }
        }
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

        init(task: any WKURLSchemeTask, handler: any SchemeHandler, onEnd: @escaping @MainActor () -> Void) {
            self.task = task
            self.handler = handler
            self.onEnd = onEnd
            request = Self.engineRequest(task.request, mayReadBody: handler.mayReadBody(of:))
        }

        nonisolated func respond(_ response: SchemeResponse) { onMain { self.respondOnMain(response) } }
        nonisolated func send(_ data: Data) { onMain { self.sendOnMain(data) } }
        nonisolated func finish() { onMain { self.finishOnMain() } }
        nonisolated func fail(_ error: SchemeTaskError) { onMain { self.failOnMain(error) } }

        /// Whether the task was still open; from now on every call is dropped.
        func markStopped() -> Bool { order.stop() }

        private func respondOnMain(_ response: SchemeResponse) {
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

        private func sendOnMain(_ data: Data) {
            guard admit(.send) else { return }
            task.didReceive(data)
        }

        private func finishOnMain() {
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

        private func failOnMain(_ error: SchemeTaskError) {
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

        /// The request as the port sees it. WebKit hands XHR and fetch bodies over as `httpBodyStream` (and form
        /// posts as `httpBody`); the handler is asked first whether the body may be read at all
        /// (`SchemeHandler/mayReadBody(of:)`), as on WebKitGTK.
        nonisolated static func engineRequest(_ urlRequest: URLRequest, mayReadBody: (EngineRequest) -> Bool)
            -> EngineRequest
        {
            let method = urlRequest.httpMethod ?? "GET"
            var request = EngineRequest(
                url: urlRequest.url ?? URL(fileURLWithPath: "/"), method: method,
                headers: (urlRequest.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            if method == "GET" || method == "HEAD" { return request }
            guard urlRequest.httpBody != nil || urlRequest.httpBodyStream != nil else { return request }
            guard mayReadBody(request) else {
                request.bodyWithheld = true
                return request
            }
            if let body = urlRequest.httpBody {
                request.body = body
            } else if let stream = urlRequest.httpBodyStream {
                request.body = readAll(stream)
            }
            return request
        }

        /// WebKit's body streams hold the bytes already in the app's process; reading them here does not wait on
        /// the network.
        nonisolated static func readAll(_ stream: InputStream) -> Data {
            stream.open()
            defer { stream.close() }
            var data = Data()
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = stream.read(&chunk, maxLength: chunk.count)
                guard count > 0 else { break }
                data.append(contentsOf: chunk[0..<count])
            }
            return data
        }
    }
#endif
