import Foundation
import HybridCore
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``NetworkFetching``: URLSession, streaming each response to the task as data arrives.
///
/// Redirects are followed by URLSession itself unless the fetch asks otherwise (main documents, which the handler
/// moves to the final URL); the task sees the final response. The session
/// keeps no cookies and no cache of its own: the engine's cookie store is not synced with it yet (a later issue),
/// and caching is the page's and the server's business through the headers passed through.
public final class URLSessionNetworkFetcher: NetworkFetching {
    private let session: URLSession
    private let sinks: SinkRegistry

    public init(timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        sinks = SinkRegistry()
        session = URLSession(configuration: configuration, delegate: sinks, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Cancels every fetch and invalidates the session, which releases its delegate (seed 000 §3.5). Fetches
    /// started afterwards fail. For owners that end a page's networking with the page.
    public func shutDown() { session.invalidateAndCancel() }

    public func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers {
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        let task = session.dataTask(with: urlRequest)
        sinks.add(task.taskIdentifier, SinkRegistry.Sink(events: events, followsRedirects: followRedirects))
        task.resume()
        return DataTaskCancelling(task: task)
    }
}

private struct DataTaskCancelling: NetworkFetchCancelling, @unchecked Sendable {
    // URLSessionTask is thread-safe; it is just not annotated Sendable on every platform.
    let task: URLSessionDataTask
    func cancel() { task.cancel() }
}

/// The session's delegate: routes each data task's callbacks to the sink its fetch registered.
private final class SinkRegistry: NSObject, URLSessionDataDelegate, Sendable {
    struct Sink: Sendable {
        let events: @Sendable (NetworkFetchEvent) -> Void
        let followsRedirects: Bool
    }

    private let sinks = Mutex<[Int: Sink]>([:])

    func add(_ id: Int, _ sink: Sink) {
        sinks.withLock { $0[id] = sink }
    }

    private func sink(_ id: Int) -> (@Sendable (NetworkFetchEvent) -> Void)? { sinks.withLock { $0[id]?.events } }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // nil keeps the 3xx as the task's response: it is delivered with its Location like any other answer.
        let follows = sinks.withLock { $0[task.taskIdentifier]?.followsRedirects } ?? true
        completionHandler(follows ? request : nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        sink(dataTask.taskIdentifier)?(.response(Self.schemeResponse(response)))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        sink(dataTask.taskIdentifier)?(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let sink = sinks.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        sink?.events(
            error.map { .failed("\(task.originalRequest?.url?.absoluteString ?? "request"): \($0)") } ?? .finished)
    }

    /// Status and headers as the server sent them, minus what URLSession already undid: it decodes gzip and
    /// chunking, so `Content-Encoding`, `Transfer-Encoding` and the encoded `Content-Length` would lie.
    static func schemeResponse(_ response: URLResponse) -> SchemeResponse {
        guard let http = response as? HTTPURLResponse else {
            return SchemeResponse(statusCode: 200, headers: ["Content-Type": response.mimeType ?? MIMEFallback.type])
        }
        var headers: [String: String] = [:]
        var encoded = false
        for (key, value) in http.allHeaderFields {
            guard let name = key as? String, let value = value as? String else { continue }
            switch name.lowercased() {
            case "content-encoding", "transfer-encoding": encoded = true
            case "content-length": continue
            default: headers[name] = value
            }
        }
        let length = encoded || http.expectedContentLength < 0 ? nil : Int(http.expectedContentLength)
        return SchemeResponse(statusCode: http.statusCode, headers: headers, expectedLength: length)
    }
}

private enum MIMEFallback {
    static let type = "application/octet-stream"
}
