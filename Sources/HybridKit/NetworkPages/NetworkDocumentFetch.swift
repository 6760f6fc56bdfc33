import Foundation
import Synchronization

/// A network page's main document as native code fetched it: what the engine is handed.
struct NetworkDocument: Sendable {
    /// The request as finally answered: the URL redirects led to.
    var request: EngineRequest
    var response: SchemeResponse
    var body: Data
    /// `Set-Cookie` values kept for the hand-over, with the URL that set them.
    var cookies: [(values: [String], url: URL)]
}

/// One native fetch of a network page's main document: GET, the jar's cookies, same-origin redirects followed hop
/// by hop, the whole body kept (engines take a document whole), bounded in size.
///
/// `Set-Cookie` values are kept, not stored: they reach the jar when, and only if, the document is handed to the
/// engine (a fallback leaves cookie effects to the engine's own load, as without native fetch).
final class NetworkDocumentFetch: Sendable {
    enum Outcome: Sendable {
        case document(NetworkDocument)
        case fallback(NetworkPageFallback)
    }

    private struct State {
        var hop: RedirectHop
        var redirects = 0
        var head: SchemeResponse?
        var body = Data()
        var cookies: [(values: [String], url: URL)] = []
        var outcome: Outcome?
        var waiters: [CheckedContinuation<Outcome, Never>] = []
        var cancel: (any NetworkFetchCancelling)?
        var claimed = false
        /// Cookies kept before the hop in flight: a redirect that adds to them set some.
        var cookiesBeforeHop = 0
    }

    /// The http(s) URL the page was opened with.
    let page: URL
    let started = ContinuousClock.now
    /// Fetched by ``NetworkPagePrefetcher/prefetch(for:)`` before any load asked for it.
    let startedEarly: Bool
    private let origin: WebOrigin
    private let policy: NetworkPagePolicy
    private let network: any NetworkFetching
    private let state: Mutex<State>

    init(
        _ request: EngineRequest, origin: WebOrigin, startedEarly: Bool, policy: NetworkPagePolicy,
        network: @Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching, jar: any HTTPCookieHandling
    ) {
        page = request.url
        self.startedEarly = startedEarly
        self.policy = policy
        self.origin = origin
        state = Mutex(
            State(hop: RedirectHop(url: RedirectHop.sendable(request.url), method: "GET", headers: request.headers)))
        let keeper = KeptCookies()
        self.network = network(DeferringDocumentCookies(jar: jar, kept: keeper))
        keeper.fetch.withLock { $0.fetch = self }
    }

    func start() { send(state.withLock { $0.hop }) }

    private func send(_ hop: RedirectHop) {
        if !policy.allowsPrivateAddresses, let host = hop.url.host(percentEncoded: false),
            PrefetchPlanner.isPrivate(host: host)
        {
            return finish(.fallback(.privateAddress(hop.url.absoluteString)))
        }
        let request = EngineRequest(url: hop.url, method: hop.method, headers: hop.headers)
        let cancel = network.fetch(request, followRedirects: false) { [weak self] event in self?.receive(event) }
        let cancelNow = state.withLock { state -> Bool in
            state.cancel = cancel
            return state.outcome != nil
        }
        if cancelNow { cancel.cancel() }
    }

    fileprivate func keep(_ values: [String], from url: URL) {
        state.withLock { $0.cookies.append((values, url)) }
    }

    private func receive(_ event: NetworkFetchEvent) {
        enum Next { case none, finish(Outcome), hop(RedirectHop) }
        let next = state.withLock { state -> Next in
            guard state.outcome == nil else { return .none }
            switch event {
            case .response(let head):
                state.head = head
                if RedirectRule.redirectStatuses.contains(head.statusCode) {
                    if state.cookies.count > state.cookiesBeforeHop {
                        return .finish(.fallback(.redirectSetsCookies(state.hop.url.absoluteString)))
                    }
                    return .none
                }
                if let refusal = Self.refusal(of: head, sent: state.hop.headers) { return .finish(.fallback(refusal)) }
                if let length = head.expectedLength, length > policy.maximumDocumentBytes {
                    return .finish(.fallback(.tooLarge(limit: policy.maximumDocumentBytes)))
                }
            case .data(let data):
                guard let head = state.head, !RedirectRule.redirectStatuses.contains(head.statusCode) else {
                    return .none
                }
                state.body.append(data)
                if state.body.count > policy.maximumDocumentBytes {
                    state.body = Data()
                    return .finish(.fallback(.tooLarge(limit: policy.maximumDocumentBytes)))
                }
            case .finished:
                guard let head = state.head else { return .finish(.fallback(.failed("no response"))) }
                guard RedirectRule.redirectStatuses.contains(head.statusCode) else {
                    let request = EngineRequest(url: state.hop.url, method: "GET", headers: state.hop.headers)
                    var response = head
                    response.redirection = nil
                    response.headers = response.headers.filter { $0.key.lowercased() != "set-cookie" }
                    return .finish(
                        .document(
                            NetworkDocument(
                                request: request, response: response, body: state.body, cookies: state.cookies)))
                }
                let location = head.headers.first { $0.key.caseInsensitiveCompare("Location") == .orderedSame }?.value
                guard state.redirects < RedirectRule.limit, let location else {
                    return .finish(.fallback(.failed("\(state.hop.url.absoluteString): redirect without a Location")))
                }
                let hop: RedirectHop
                do throws(RedirectRefusal) {
                    hop = try RedirectRule.next(after: state.hop, status: head.statusCode, location: location)
                } catch {
                    return .finish(.fallback(.failed(error.reason)))
                }
                guard WebOrigin(hop.url) == origin else {
                    return .finish(.fallback(.crossOriginRedirect(hop.url.absoluteString)))
                }
                state.redirects += 1
                state.hop = hop
                state.head = nil
                state.cookiesBeforeHop = state.cookies.count
                return .hop(hop)
            case .failed(let why):
                return .finish(.fallback(.failed(why)))
            }
            return .none
        }
        switch next {
        case .none: break
        case .finish(let outcome): finish(outcome)
        case .hop(let hop): send(hop)
        }
    }

    /// Why `head`, the answer to a request with the headers `sent`, cannot be handed to an engine as a document,
    /// whatever the engine.
    static func refusal(of head: SchemeResponse, sent: [(name: String, value: String)] = []) -> NetworkPageFallback? {
        guard head.statusCode == 200 else { return .notAnHTMLDocument("status \(head.statusCode)") }
        let type = head.headers.first { $0.key.caseInsensitiveCompare("Content-Type") == .orderedSame }?.value ?? ""
        let mime = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mime == "text/html" || mime == "application/xhtml+xml" else {
            return .notAnHTMLDocument("Content-Type '\(type)'")
        }
        if let header = SimulatedLoadHeaders.first(in: head.headers, of: SimulatedLoadHeaders.networkLayer) {
            return .headerNotCarried(header)
        }
        // A document that varies on a header the engine puts on its own request (its languages, agent, accept list),
        // which the native fetch sent otherwise or not at all, may be another variant than the engine would show.
        let varied = PrefetchAnswers.varyUnknownToTheEngine(head) { name in
            sent.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        if let varied { return .variesOnWhatTheEngineSends(varied) }
        let disposition = head.headers.first { $0.key.caseInsensitiveCompare("Content-Disposition") == .orderedSame }
        if disposition?.value.lowercased().hasPrefix("attachment") == true {
            return .notAnHTMLDocument("a download (Content-Disposition: attachment)")
        }
        return nil
    }

    /// Ends the fetch with `outcome` (the first one wins) and wakes whoever waits.
    func finish(_ outcome: Outcome) {
        let (waiters, cancel) = state.withLock {
            state -> ([CheckedContinuation<Outcome, Never>], (any NetworkFetchCancelling)?) in
            guard state.outcome == nil else { return ([], nil) }
            state.outcome = outcome
            defer { state.waiters = [] }
            if case .fallback = outcome { return (state.waiters, state.cancel) }
            return (state.waiters, nil)
        }
        cancel?.cancel()
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// The document, or why there is none, waiting at most until `deadline` (then: ``NetworkPageFallback/slow(_:)``).
    func outcome(by deadline: ContinuousClock.Instant, wait: Duration) async -> Outcome {
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            self?.finish(.fallback(.slow(wait)))
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Claims the fetch for one load; false when another did.
    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    var isClaimed: Bool { state.withLock { $0.claimed } }
    /// Whether the document (or why there is none) is in already.
    var hasOutcome: Bool { state.withLock { $0.outcome != nil } }
    var isFailed: Bool {
        state.withLock { state in
            if case .fallback = state.outcome { return true }
            return false
        }
    }

    /// Stops the fetch (its page went elsewhere, it expired, or was evicted); nothing of it reaches the jar.
    func drop() { finish(.fallback(.failed("dropped"))) }
}

/// Sends the jar's cookies; keeps what responses set for the hand-over.
private struct DeferringDocumentCookies: HTTPCookieHandling {
    let jar: any HTTPCookieHandling
    let kept: KeptCookies

    func cookieHeader(for url: URL, firstParty: URL?, method: String, includeHTTPOnly: Bool) -> String? {
        jar.cookieHeader(for: url, firstParty: firstParty, method: method, includeHTTPOnly: includeHTTPOnly)
    }

    func storeSetCookies(_ values: [String], from url: URL, firstParty: URL?) {
        guard !values.isEmpty else { return }
        kept.fetch.withLock { $0.fetch }?.keep(values, from: url)
    }
}

/// The fetch the cookie handler reports to, set once the fetch exists (the network is made before it); weak, as
/// the fetch holds the network that holds this.
private final class KeptCookies: Sendable {
    struct Box { weak var fetch: NetworkDocumentFetch? }
    let fetch = Mutex(Box())
}
