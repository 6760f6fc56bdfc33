import Foundation
import HybridCookies
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``NetworkFetching``: URLSession, streaming each response to the task as data arrives.
///
/// Redirects are followed here, hop by hop, with the browser rules of ``RedirectRule`` (307/308 re-send the method
/// and body, 301/302 turn a POST into a GET, 303 a GET without body, Authorization dropped across origins), unless
/// the fetch asks otherwise (main documents, which the handler moves to the final URL). URLSession is not left to
/// follow them: on Linux it re-sends no body after a 307. The task sees the final response, with
/// `SchemeResponse.redirectedTo` set when redirects led to it. The session keeps no cookies and no cache of its
/// own: with a cookie handler (the jar), each hop — the first request and every redirect, across hosts — carries
/// the handler's `Cookie` header for its own URL, and every `Set-Cookie` (redirect responses included) goes to the
/// handler; `Set-Cookie` never reaches the engine. Caching is the page's and the server's business through the
/// headers passed through.
///
/// Fetchers made with ``sharingSession(cookies:)`` use this one's URLSession, and so its open connections: a
/// prefetch or a page's request to a server the app already reached needs no new TCP and TLS handshake, as the
/// engine's own requests need none (one session per request would pay both every time).
public final class URLSessionNetworkFetcher: NetworkFetching {
    private let session: SharedURLSession
    private let cookies: (any HTTPCookieHandling)?
    /// The fetches this fetcher started, for ``shutDown()``.
    private let scope = FetchScope()

    /// - Parameters:
    ///   - timeout: seconds a request may wait for data before it fails.
    ///   - cookies: where cookies come from and go to; nil sends none and drops what servers set.
    ///   - developmentOrigin: send one origin's requests to another server, cookies and redirects kept under the
    ///     first (see ``DevelopmentOrigin``).
    public convenience init(
        timeout: TimeInterval = 60, cookies: (any HTTPCookieHandling)? = nil,
        sendingTo developmentOrigin: DevelopmentOrigin? = nil
    ) {
        self.init(session: SharedURLSession(timeout: timeout, origin: developmentOrigin), cookies: cookies)
    }

    private init(session: SharedURLSession, cookies: (any HTTPCookieHandling)?) {
        self.session = session
        self.cookies = cookies
    }

    /// A fetcher on this one's session (its connections, timeout and development origin) whose cookies come from
    /// and go to `cookies`, and whose ``shutDown()`` ends only its own fetches. The session lives until the last
    /// fetcher using it is gone.
    public func sharingSession(cookies: (any HTTPCookieHandling)?) -> URLSessionNetworkFetcher {
        URLSessionNetworkFetcher(session: session, cookies: cookies)
    }

    /// Cancels every fetch this fetcher started; fetches started afterwards fail. For owners that end a page's
    /// networking with the page. Fetchers sharing the session go on.
    public func shutDown() { session.registry.cancel(scope) }

    public func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        let first = RedirectHop(
            url: request.url, method: request.method,
            headers: request.headers.filter { $0.name.caseInsensitiveCompare("Cookie") != .orderedSame },
            body: request.body)
        let chain = FetchChain(
            first: first, followsRedirects: followRedirects, cookies: cookies, scope: scope, events: events)
        session.registry.start(first, of: chain, in: session.session)
        return chain
    }
}

/// One URLSession and its delegate, shared by the fetchers made from one another; invalidated with the last.
private final class SharedURLSession: Sendable {
    let session: URLSession
    let registry: SinkRegistry

    init(timeout: TimeInterval, origin: DevelopmentOrigin?) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        // The handlers are the only cookie stores: URLSession must neither add cookies of its own nor keep any.
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        registry = SinkRegistry(origin: origin)
        session = URLSession(configuration: configuration, delegate: registry, delegateQueue: nil)
    }

    // A URLSession holds its delegate until invalidated; fetches in flight finish first.
    deinit { session.finishTasksAndInvalidate() }
}

/// Which fetcher started a fetch, so that fetcher's ``URLSessionNetworkFetcher/shutDown()`` finds its fetches
/// among the session's, and refuses new ones once shut.
private final class FetchScope: Sendable {
    private let shut = Atomic(false)
    var isShut: Bool { shut.load(ordering: .acquiring) }
    func close() { shut.store(true, ordering: .releasing) }
}

/// One fetch from its first hop to its final response: the hop in flight, how many redirects led to it, and
/// whether the owner cancelled it.
private final class FetchChain: NetworkFetchCancelling, @unchecked Sendable {
    struct State {
        var hop: RedirectHop
        var redirects = 0
        var bodyResends = 0
        // URLSessionTask is thread-safe; it is just not annotated Sendable on every platform.
        var task: URLSessionDataTask?
        var cancelled = false
        var events: (@Sendable (NetworkFetchEvent) -> Void)?
    }

    enum Step {
        case next(RedirectHop)
        case failed(String)
    }

    let followsRedirects: Bool
    /// Where this fetch's cookies come from and go to.
    let cookies: (any HTTPCookieHandling)?
    let scope: FetchScope
    private let state: Mutex<State>

    init(
        first: RedirectHop, followsRedirects: Bool, cookies: (any HTTPCookieHandling)?, scope: FetchScope,
        events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) {
        self.followsRedirects = followsRedirects
        self.cookies = cookies
        self.scope = scope
        state = Mutex(State(hop: first, events: events))
    }

    /// Reports `event` to the fetch's owner. The last event lets go of the owner's closure: it usually holds
    /// whatever holds this chain (to cancel it), and that cycle must end with the fetch.
    func send(_ event: NetworkFetchEvent) {
        let events = state.withLock { state in
            let events = state.events
            switch event {
            case .finished, .failed:
                state.events = nil
                state.task = nil
            case .response, .data: break
            }
            return events
        }
        events?(event)
    }

    /// Where the redirects so far led; nil before the first.
    func redirection(to url: URL?) -> SchemeResponse.Redirection? {
        state.withLock { state in
            guard state.redirects > 0 else { return nil }
            return SchemeResponse.Redirection(
                url: url ?? state.hop.url, bodyResends: state.bodyResends, crossedOrigins: state.hop.crossedOrigins)
        }
    }

    /// Makes `task` the hop in flight; false when the chain was cancelled (the task must not start).
    func begin(_ task: URLSessionDataTask) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.task = task
            return true
        }
    }

    /// The hop after the one in flight answered `status` with `location`.
    func advance(status: Int, location: String?) -> Step {
        state.withLock { state -> Step in
            // The task waits for the redirect decision: cancelling it now would trip URLSession (corelibs expects
            // the decision first), so a cancel from here on only stops the chain.
            state.task = nil
            if state.cancelled { return .failed("cancelled") }
            guard let location else {
                return .failed("\(state.hop.url.absoluteString) answered \(status) without a Location")
            }
            guard state.redirects < RedirectRule.limit else {
                return .failed("\(state.hop.url.absoluteString): more than \(RedirectRule.limit) redirects")
            }
            do throws(RedirectRefusal) {
                state.hop = try RedirectRule.next(after: state.hop, status: status, location: location)
            } catch {
                return .failed(error.reason)
            }
            state.redirects += 1
            if state.hop.body != nil { state.bodyResends += 1 }
            return .next(state.hop)
        }
    }

    func cancel() {
        let task = state.withLock { state -> URLSessionDataTask? in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

/// The session's delegate: routes each data task's callbacks to the sink its fetch registered.
private final class SinkRegistry: NSObject, URLSessionDataDelegate, Sendable {
    private let chains = Mutex<[Int: FetchChain]>([:])
    private let origin: DevelopmentOrigin?

    init(origin: DevelopmentOrigin?) {
        self.origin = origin
    }

    /// Sets the request's `Cookie` header to the handler's answer for `url` (the page's view of where it goes),
    /// replacing whatever it had (a redirect's new request inherits the previous hop's headers, which belong to
    /// another URL).
    private func attachCookies(_ cookies: (any HTTPCookieHandling)?, to request: inout URLRequest, for url: URL) {
        guard let cookies else { return }
        request.setValue(nil, forHTTPHeaderField: "Cookie")
        if let header = cookies.cookieHeader(
            for: url, firstParty: nil, method: request.httpMethod ?? "GET", includeHTTPOnly: true)
        {
            request.setValue(header, forHTTPHeaderField: "Cookie")
        }
    }

    /// Hands the response's `Set-Cookie` values to the handler.
    private func storeCookies(of response: URLResponse, in cookies: (any HTTPCookieHandling)?) {
        guard let cookies, let http = response as? HTTPURLResponse, let sent = http.url else { return }
        let url = origin?.inbound(sent) ?? sent
        // Foundation joins repeated headers with ", "; the splitter keeps the comma inside Expires.
        let values = http.allHeaderFields.compactMap { key, value -> String? in
            guard let name = key as? String, name.caseInsensitiveCompare("Set-Cookie") == .orderedSame else {
                return nil
            }
            return value as? String
        }.flatMap(SetCookieHeaderSplitter.split)
        cookies.storeSetCookies(values, from: url, firstParty: nil)
    }

    /// Sends `hop` as a new data task of `chain`.
    func start(_ hop: RedirectHop, of chain: FetchChain, in session: URLSession) {
        var request = URLRequest(url: origin?.outbound(hop.url) ?? hop.url)
        request.httpMethod = hop.method
        request.httpBody = hop.body
        for (name, value) in hop.headers { request.addValue(value, forHTTPHeaderField: name) }
        Self.keepUntyped(&request)
        attachCookies(chain.cookies, to: &request, for: hop.url)
        let task = session.dataTask(with: request)
        guard chain.begin(task) else { return chain.send(.failed("\(hop.url.absoluteString): cancelled")) }
        // The scope is read under the lock `cancel(_:)` scans under: a fetch is either found there or refused here.
        let registered = chains.withLock { chains in
            guard !chain.scope.isShut else { return false }
            chains[task.taskIdentifier] = chain
            return true
        }
        guard registered else {
            task.cancel()
            return chain.send(.failed("\(hop.url.absoluteString): cancelled, the fetcher was shut down"))
        }
        task.resume()
    }

    /// Cancels the fetches of `scope` and refuses its new ones.
    func cancel(_ scope: FetchScope) {
        scope.close()
        let ended = chains.withLock { chains in chains.values.filter { $0.scope === scope } }
        for chain in ended { chain.cancel() }
    }

    /// A body the page sent without a type must reach the server without one, as the engine sends it.
    /// swift-corelibs-foundation gives every POST body without a Content-Type
    /// `application/x-www-form-urlencoded`; a blank value stops it, and libcurl sends no header for a blank one.
    static func keepUntyped(_ request: inout URLRequest) {
        #if canImport(FoundationNetworking)
        let hasBody = !(request.httpBody?.isEmpty ?? true) || request.httpBodyStream != nil
        guard hasBody, request.value(forHTTPHeaderField: "Content-Type") == nil else { return }
        request.setValue(" ", forHTTPHeaderField: "Content-Type")
        #endif
    }

    private func chain(_ id: Int) -> FetchChain? { chains.withLock { $0[id] } }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // nil keeps the 3xx as this task's response. Without following, it is delivered with its Location like
        // any other answer (and its cookies are stored then); when following, the chain sends the next hop itself
        // as a new task, because URLSession's own hop would lose a 307's body, and this task's last callbacks
        // find no chain.
        guard let chain = chain(task.taskIdentifier), chain.followsRedirects else {
            completionHandler(nil)
            return
        }
        // The redirect's cookies first: the next hop may be the one that needs them.
        storeCookies(of: response, in: chain.cookies)
        let location = Self.header("Location", of: response).map { origin?.inbound(location: $0) ?? $0 }
        let step = chain.advance(status: response.statusCode, location: location)
        chains.withLock { $0[task.taskIdentifier] = nil }
        completionHandler(nil)
        switch step {
        case .next(let hop): start(hop, of: chain, in: session)
        case .failed(let why): chain.send(.failed(why))
        }
    }

    static func header(_ name: String, of response: HTTPURLResponse) -> String? {
        response.allHeaderFields.first { key, _ in
            (key as? String)?.caseInsensitiveCompare(name) == .orderedSame
        }?.value as? String
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let chain = chain(dataTask.taskIdentifier) else { return completionHandler(.allow) }
        storeCookies(of: response, in: chain.cookies)
        var head = Self.schemeResponse(response)
        if let origin {
            for (name, value) in head.headers where name.caseInsensitiveCompare("Location") == .orderedSame {
                head.headers[name] = origin.inbound(location: value)
            }
            head.redirection = chain.redirection(to: response.url.map(origin.inbound))
        } else {
            head.redirection = chain.redirection(to: response.url)
        }
        chain.send(.response(head))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        chain(dataTask.taskIdentifier)?.send(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let chain = chains.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        chain?.send(
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
            // The jar has them; the engine does not keep cookies for custom schemes, and page script must not
            // read them (HttpOnly) from response headers.
            case "set-cookie", "set-cookie2": continue
            default: headers[name] = value
            }
        }
        let length = encoded || http.expectedContentLength < 0 ? nil : Int(http.expectedContentLength)
        // The page reads it as it would from the server (the engine adds none for a custom scheme).
        if let length { headers["Content-Length"] = String(length) }
        return SchemeResponse(statusCode: http.statusCode, headers: headers, expectedLength: length)
    }
}

private enum MIMEFallback {
    static let type = "application/octet-stream"
}
