import Foundation
import Synchronization

/// One prefetch: its response as it arrives, kept until a page's request claims it (then streamed to that
/// request, what was buffered first) or it expires.
///
/// The `Set-Cookie` values the response carries are kept too, and given to the jar only when the response is
/// handed to the page, so cookie effects happen when, and only if, the page gets the response, as without
/// prefetch.
final class PrefetchEntry: Sendable {
    enum Phase: Sendable { case running, finished, failed, dropped }

    /// How a claim ends before the page got a response head: the page's request then goes to the network.
    enum Fallback: Sendable, CustomStringConvertible {
        case failed, slow, dropped
        /// Its response varies (`Vary`) on a header the page's request has otherwise than the prefetch's.
        case otherVariant

        var description: String {
            switch self {
            case .failed: "failed"
            case .slow: "slow"
            case .dropped: "dropped"
            case .otherVariant:
                "its response varies (Vary) on a header the page's request has otherwise: declare that header, with "
                    + "the value the page sends, in the prefetch"
            }
        }
    }

    struct State {
        var phase = Phase.running
        var buffered: [NetworkFetchEvent] = []
        var bytes = 0
        var headArrived = false
        var pendingCookies: [(values: [String], url: URL)] = []
        var sentCookies: String?
        var cookiesRead = false
        var cancel: (any NetworkFetchCancelling)?
        var finishedAt: ContinuousClock.Instant?
        // Once claimed:
        var consumer: (@Sendable (NetworkFetchEvent) -> Void)?
        var fallback: (@Sendable (Fallback) -> Void)?
        var handedHead = false
        var delivering = false
        /// The consumer takes the response only once it is whole: the kept cookies reach the jar with its end.
        var cookiesWhenWhole = false
        /// Whether a response head is the claiming request's variant (checked before the head is handed over).
        var accepts: (@Sendable (SchemeResponse) -> Bool)?

        /// Ends the claim before it took what is kept: nothing buffered or kept reaches the page or the jar.
        mutating func giveUpClaim() {
            consumer = nil
            fallback = nil
            phase = .dropped
            buffered = []
            pendingCookies = []
        }
    }

    let plan: PlannedPrefetch
    /// The http(s) URL of the page it was made for.
    let page: URL
    let started = ContinuousClock.now
    private let state = Mutex(State())
    private let cookies: (any HTTPCookieHandling)?
    private let maximumBytes: Int

    init(plan: PlannedPrefetch, page: URL, cookies: (any HTTPCookieHandling)?, maximumBytes: Int) {
        self.plan = plan
        self.page = page
        self.cookies = plan.credentials == .omit ? nil : cookies
        self.maximumBytes = maximumBytes
    }

    /// The cookie handler the prefetch's network uses: it sends the jar's cookies (remembering what it sent) and
    /// keeps what the response sets for the hand-over.
    var deferringCookies: (any HTTPCookieHandling)? { cookies.map { DeferringCookies(entry: self, jar: $0) } }

    func attach(_ cancel: any NetworkFetchCancelling) {
        let cancelNow = state.withLock { state -> Bool in
            state.cancel = cancel
            return state.phase == .dropped
        }
        if cancelNow { cancel.cancel() }
    }

    var phase: Phase { state.withLock { $0.phase } }
    var isClaimed: Bool { state.withLock { $0.consumer != nil || $0.fallback != nil } }
    var finishedAt: ContinuousClock.Instant? { state.withLock { $0.finishedAt } }

    /// Whether the jar would send the same `Cookie` header now as the prefetch did.
    func cookiesUnchanged() -> Bool {
        guard let cookies else { return true }
        let (read, sent) = state.withLock { ($0.cookiesRead, $0.sentCookies) }
        guard read else { return false }  // Not sent yet: it cannot be known to match.
        return cookies.cookieHeader(for: plan.url, firstParty: nil, method: plan.method, includeHTTPOnly: true) == sent
    }

    fileprivate func noteSentCookies(_ header: String?) {
        state.withLock { state in
            guard !state.cookiesRead else { return }
            state.cookiesRead = true
            state.sentCookies = header
        }
    }

    fileprivate func keepCookies(_ values: [String], from url: URL) {
        state.withLock { $0.pendingCookies.append((values, url)) }
    }

    /// An event from the prefetch's network.
    func receive(_ event: NetworkFetchEvent) {
        enum Action {
            case none, drain, drop
            case fallback(@Sendable (Fallback) -> Void, cancel: Bool)
        }
        let action = state.withLock { state -> Action in
            guard state.phase == .running else { return .none }
            switch event {
            case .response(let head) where head.redirection?.crossedOrigins == true:
                // The engine's own fetch would have dropped the cookies past the other origin and tainted the
                // answer: what was fetched here is not what the page could have got, so it never answers.
                state.phase = .dropped
                state.buffered = []
                guard let fallback = state.fallback else { return .drop }
                state.consumer = nil
                state.fallback = nil
                return .fallback(fallback, cancel: true)
            case .response: state.headArrived = true
            case .data(let data):
                state.bytes += data.count
                if state.consumer == nil, state.bytes > maximumBytes {
                    state.phase = .dropped
                    state.buffered = []
                    return .drop
                }
            case .finished:
                state.phase = .finished
                state.finishedAt = .now
            case .failed:
                state.phase = .failed
                state.finishedAt = .now
                // Before the page saw a head, a failure is invisible to it: it fetches itself.
                if !state.handedHead, let fallback = state.fallback {
                    state.consumer = nil
                    state.fallback = nil
                    return .fallback(fallback, cancel: false)
                }
            }
            state.buffered.append(event)
            return state.consumer == nil ? .none : .drain
        }
        switch action {
        case .none: break
        case .drain: drain()
        case .fallback(let fallback, let cancel):
            fallback(.failed)
            if cancel { cancelNetwork() }
        case .drop: cancelNetwork()
        }
    }

    /// Hands the response to `consumer`, streaming what is still to come; `fallback` is called instead if the
    /// prefetch fails, is dropped or is too slow before its head reached the page. False when it cannot answer.
    /// `cookiesWhenWhole`: the consumer hands the page nothing before the end (and may still give up after the
    /// head), so the response's `Set-Cookie` reaches the jar only with its end, not with its head.
    /// `accepts`: whether a response head is the variant the claiming request would have got (``Fallback/otherVariant``
    /// when not).
    func claim(
        consumer: @escaping @Sendable (NetworkFetchEvent) -> Void, fallback: @escaping @Sendable (Fallback) -> Void,
        cookiesWhenWhole: Bool = false, accepts: (@Sendable (SchemeResponse) -> Bool)? = nil
    ) -> Bool {
        let claimed = state.withLock { state -> Bool in
            guard state.consumer == nil, state.fallback == nil, state.phase == .running || state.phase == .finished
            else { return false }
            state.consumer = consumer
            state.fallback = fallback
            state.cookiesWhenWhole = cookiesWhenWhole
            state.accepts = accepts
            return true
        }
        if claimed { drain() }
        return claimed
    }

    /// Gives up on the claim if no head reached the page yet (a slow prefetch); true when it did.
    func abandonIfHeadless() -> Bool {
        let fallback = state.withLock { state -> (@Sendable (Fallback) -> Void)? in
            guard !state.handedHead, let fallback = state.fallback else { return nil }
            state.consumer = nil
            state.fallback = nil
            state.phase = .dropped
            return fallback
        }
        guard let fallback else { return false }
        cancelNetwork()
        fallback(.slow)
        return true
    }

    /// Drops an unclaimed prefetch (expired, replaced, its page closed); false when a page already claimed it.
    @discardableResult
    func drop() -> Bool {
        let dropped = state.withLock { state -> Bool in
            guard state.consumer == nil, state.fallback == nil else { return false }
            if state.phase == .running || state.phase == .finished { state.phase = .dropped }
            state.buffered = []
            return true
        }
        if dropped { cancelNetwork() }
        return dropped
    }

    /// The document that claimed it is gone (the main frame committed another). Unless its cookies reached the jar
    /// already (with the head, or with the end for a consumer that takes it whole), nothing more is handed over:
    /// the consumer gets a failure, the kept cookies are dropped and the network is cancelled, as the page's own
    /// request would have been cancelled with its document. True when it was given up.
    @discardableResult
    func pageLeft() -> Bool {
        let consumer = state.withLock { state -> (@Sendable (NetworkFetchEvent) -> Void)? in
            guard let consumer = state.consumer, state.cookiesWhenWhole || !state.handedHead else { return nil }
            state.giveUpClaim()
            return consumer
        }
        guard let consumer else { return false }
        cancelNetwork()
        consumer(.failed("the page left before its answer came: the main frame committed another document"))
        return true
    }

    /// Whether a page's claim may still take more of it (see ``pageLeft()``).
    var isBeingHandedOver: Bool { state.withLock { $0.consumer != nil } }

    /// Cancels the network when the page's request is stopped.
    func cancelByPage() {
        state.withLock { state in
            state.consumer = nil
            state.fallback = nil
            state.phase = .dropped
        }
        cancelNetwork()
    }

    private func cancelNetwork() {
        state.withLock { $0.cancel }?.cancel()
    }

    /// Forwards buffered events in order, one drainer at a time, applying kept cookies just before the head.
    private func drain() {
        let mayDrain = state.withLock { state -> Bool in
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        guard mayDrain else { return }
        enum Next {
            case hand(NetworkFetchEvent, @Sendable (NetworkFetchEvent) -> Void, [(values: [String], url: URL)])
            case otherVariant(@Sendable (Fallback) -> Void)
        }
        while true {
            let next = state.withLock { state -> Next? in
                guard let consumer = state.consumer, !state.buffered.isEmpty else {
                    state.delivering = false
                    return nil
                }
                if case .response(let head) = state.buffered[0], let accepts = state.accepts, !accepts(head),
                    let fallback = state.fallback
                {
                    // Not the page's variant: the page fetches itself, and nothing of this one reaches it or the jar.
                    state.giveUpClaim()
                    state.delivering = false
                    return .otherVariant(fallback)
                }
                let event = state.buffered.removeFirst()
                // The kept cookies go with the head, or with the end for a consumer that takes the response whole.
                let cookiesNow: Bool
                switch event {
                case .response:
                    state.handedHead = true
                    state.fallback = nil
                    cookiesNow = !state.cookiesWhenWhole
                case .finished:
                    state.consumer = nil
                    cookiesNow = state.cookiesWhenWhole
                case .failed:
                    state.consumer = nil
                    cookiesNow = false
                case .data: cookiesNow = false
                }
                guard cookiesNow else { return .hand(event, consumer, []) }
                defer { state.pendingCookies = [] }
                return .hand(event, consumer, state.pendingCookies)
            }
            switch next {
            case nil: return
            case .otherVariant(let fallback):
                cancelNetwork()
                fallback(.otherVariant)
                return
            case .hand(let event, let consumer, let kept):
                for cookie in kept { cookies?.storeSetCookies(cookie.values, from: cookie.url, firstParty: nil) }
                consumer(event)
            }
        }
    }
}

/// The prefetch's cookie handler: the jar's cookies go out, `Set-Cookie` waits in the entry for the hand-over.
private struct DeferringCookies: HTTPCookieHandling {
    let entry: PrefetchEntry
    let jar: any HTTPCookieHandling

    func cookieHeader(for url: URL, firstParty: URL?, method: String, includeHTTPOnly: Bool) -> String? {
        // A redirect to another origin ends the prefetch unanswered (``PrefetchEntry/receive(_:)``); until it
        // does, that origin gets no cookies, as from a `fetch` whose credentials stay on its own origin.
        guard onPlansOrigin(url) else { return nil }
        let header = jar.cookieHeader(
            for: url, firstParty: firstParty, method: method, includeHTTPOnly: includeHTTPOnly)
        if url == entry.plan.url { entry.noteSentCookies(header) }
        return header
    }

    func storeSetCookies(_ values: [String], from url: URL, firstParty: URL?) {
        guard !values.isEmpty, onPlansOrigin(url) else { return }
        entry.keepCookies(values, from: url)
    }

    /// The first hop (the plan's own URL, on the container's scheme too), or a later one on its web origin: a
    /// redirect is followed only to http(s), so from a custom-scheme URL every redirect leaves the origin.
    private func onPlansOrigin(_ url: URL) -> Bool { url == entry.plan.url || WebOrigin.same(url, entry.plan.url) }
}
