import Dispatch
import Foundation
import Synchronization

/// One view's side of first-screen prefetch: which page its main frame shows, and the secret its main frame's
/// script stamps on the requests it makes, so a frame's request (or a forged one) never takes a prefetch.
final class PrefetchAnswers: Sendable {
    /// The header the page's script puts on its same-origin GET and HEAD requests: `<token> <credentials mode>`.
    static let stampHeader = "X-Hybrid-Prefetch"
    /// The path the page's script reads what was prefetched from, and reports its first screen to.
    static let ownPath = "/__hybrid_prefetch__"

    let prefetcher: FirstScreenPrefetcher
    let token = UUID().uuidString
    private let page = Mutex<URL?>(nil)
    private let usedPlans = Mutex<[(page: URL, plan: PlannedPrefetch)]>([])
    /// Which main-frame document this is (one more at each commit), and the claims still being handed to it.
    private let documents = Mutex<(current: Int, claims: [PrefetchEntry])>((0, []))

    init(prefetcher: FirstScreenPrefetcher) { self.prefetcher = prefetcher }

    /// The host opens `url` in this view: prefetch for it (unless a tap already did) and answer its requests.
    func pageWillOpen(_ url: URL) {
        guard let http = prefetcher.httpURL(url) else { return }
        let previous = page.withLock { page -> URL? in
            defer { page = http }
            return page
        }
        if let previous, FirstScreenPrefetcher.markKey(previous) != FirstScreenPrefetcher.markKey(http) {
            prefetcher.discard(for: previous)
        }
        prefetcher.prefetch(for: http)
    }

    var currentPage: URL? { page.withLock { $0 } }

    /// What answered the page's requests on `page` (the page reads it with `hybridPrefetch.requests()`).
    func used(on page: URL) -> [PlannedPrefetch] {
        let key = FirstScreenPrefetcher.markKey(page)
        return usedPlans.withLock { $0.filter { FirstScreenPrefetcher.markKey($0.page) == key }.map(\.plan) }
    }

    /// What the page reads with `hybridPrefetch.requests()`: what answered its requests, then what still waits.
    func listing(on page: URL) -> [PrefetchListing] {
        used(on: page).map { PrefetchListing($0, state: "used") }
            + prefetcher.pending(for: page).map { PrefetchListing($0, state: "waiting") }
    }

    /// The page says its first screen is shown (`hybridPrefetch.firstScreen()`): the first such mark counts.
    func markFirstScreen(on page: URL) {
        prefetcher.mark(page) { if $0.firstScreen == nil { $0.firstScreen = .now } }
    }

    func noteUsed(_ plan: PlannedPrefetch, on page: URL) {
        usedPlans.withLock { used in
            used.append((page, plan))
            if used.count > 64 { used.removeFirst(used.count - 64) }
        }
    }

    /// The main frame's current document, as a number that changes at each commit.
    var document: Int { documents.withLock { $0.current } }

    /// The main frame committed another document: the claims still being handed to an earlier one are given up
    /// (``PrefetchEntry/pageLeft()``), so a page that left gets nothing more, nor the answer's cookie effects.
    /// WKWebView stops a package page's requests with their document (the claim is cancelled then too); WebKitGTK
    /// says nothing to a scheme handler before the response head, and a network page's answer is a script reply.
    func mainFrameCommitted() {
        let gone = documents.withLock { documents in
            documents.current += 1
            defer { documents.claims = [] }
            return documents.claims
        }
        for entry in gone { entry.pageLeft() }
    }

    func close() {
        if let page = currentPage { prefetcher.discard(for: page) }
    }

    /// The credentials mode a stamp vouches for; nil when it is not this view's main frame's.
    func credentials(vouchedBy stamp: String) -> PrefetchRequest.Credentials? {
        let parts = stamp.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0] == token else { return nil }
        return PrefetchRequest.Credentials(rawValue: parts[1])
    }

    /// Takes the prefetch `request` (made with `credentials` by the main frame of `page`, in its `document`) matches
    /// and hands its response to `events`, streaming what is still to come; `fallback` instead when it is given up
    /// before its head reached `events` (failed, dropped, another variant, or no head within
    /// ``PrefetchPolicy/claimWait``). Nil, counted as a miss, when none matches, it cannot answer any more, or the
    /// document is gone: the caller sends the request to the network.
    ///
    /// The one claim path of both answering routes: the package handler's network (``PrefetchAnsweringFetcher``) and
    /// network pages' script messages (``PrefetchMessageAnswers``). `exactHeaders`: the request's headers are only
    /// those the page set (a network page's `Request`), and must be the declared ones, no more (see
    /// ``plan(_:answers:credentials:exactHeaders:)``). `cookiesWhenWhole`: the caller answers only with the whole
    /// response (see ``PrefetchEntry/claim(consumer:fallback:cookiesWhenWhole:accepts:)``).
    func claim(
        _ request: EngineRequest, credentials: PrefetchRequest.Credentials, page: URL, document: Int,
        exactHeaders: Bool = false, cookiesWhenWhole: Bool = false,
        events: @escaping @Sendable (NetworkFetchEvent) -> Void,
        fallback: @escaping @Sendable (PrefetchEntry.Fallback) -> Void
    ) -> PrefetchEntry? {
        // Asked by a document that is gone already: a claim would set its cookies for nobody.
        guard self.document == document else {
            prefetcher.metrics.count(.miss)
            return nil
        }
        guard
            let entry = prefetcher.take(
                page: page,
                where: { Self.plan($0, answers: request, credentials: credentials, exactHeaders: exactHeaders) }),
            entry.claim(
                consumer: events, fallback: fallback, cookiesWhenWhole: cookiesWhenWhole,
                accepts: { [plan = entry.plan] head in
                    Self.variant(head, of: plan, answers: request, exactHeaders: exactHeaders)
                })
        else {
            prefetcher.metrics.count(.miss)
            return nil
        }
        prefetcher.metrics.count(.hit)
        let current = documents.withLock { documents -> Bool in
            documents.claims.removeAll { !$0.isBeingHandedOver }
            guard documents.current == document else { return false }
            documents.claims.append(entry)
            return true
        }
        // The document left while the claim was made.
        if !current { entry.pageLeft() }
        noteUsed(entry.plan, on: page)
        prefetcher.metrics.recordSaved(min(ContinuousClock.now, entry.finishedAt ?? .now) - entry.started)
        DispatchQueue.global().asyncAfter(deadline: .now() + prefetcher.policy.claimWait.dispatchInterval) {
            _ = entry.abandonIfHeadless()
        }
        return entry
    }

    /// Whether `head`, the prefetch's response, is the variant `request` would have got (RFC 9110 §12.5.5): every
    /// header its `Vary` names has the same value in both requests. `Vary: *` never matches; `Cookie` is left to the
    /// cookie check; `Accept-Encoding` and `Origin` are left out (the page gets the decoded body either way, and a
    /// same-origin GET's answer does not depend on CORS). With `exactHeaders` (a network page: the script sees only
    /// the headers it set, which equal the declared ones), only what the engine adds unseen can differ
    /// (``varyUnknownToTheEngine(_:sent:)``).
    static func variant(
        _ head: SchemeResponse, of plan: PlannedPrefetch, answers request: EngineRequest, exactHeaders: Bool
    ) -> Bool {
        let sent = { (name: String) in plan.headers.first { $0.name.lowercased() == name }?.value }
        if exactHeaders { return varyUnknownToTheEngine(head, sent: sent) == nil }
        return CacheRules.varyNames(head.headers).allSatisfy { name in
            name != "*"
                && (["cookie", "accept-encoding", "origin"].contains(name) || request.header(name) == sent(name))
        }
    }

    /// The first header `head`'s `Vary` names that a request sending `sent` (its value of a lowercased name, or nil)
    /// cannot be known to have sent as the engine's own request would: `*`, or a header the engine adds to its
    /// requests (``engineAddedHeaders``) that `sent` lacks. Nil when the answer is the engine's variant too.
    static func varyUnknownToTheEngine(_ head: SchemeResponse, sent: (String) -> String?) -> String? {
        CacheRules.varyNames(head.headers).first { name in
            name == "*" || (engineAddedHeaders.contains(name) && sent(name) == nil)
        }
    }

    /// Headers an engine puts on its own requests whatever the page's script set.
    static let engineAddedHeaders: Set<String> = ["accept", "accept-language", "user-agent"]

    /// Headers a page's request may carry only if the prefetch declared them with the same value: they change
    /// what the server answers.
    static let varyingHeaders: Set<String> = [
        "authorization", "range", "if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range",
    ]

    /// Whether `plan` is what `request` (made with `credentials`) asks for. With `exactHeaders` (a network page's
    /// request, whose headers are only those its script set: `Accept-Language: de`, an API version header…),
    /// a header the declaration does not name is a mismatch too: the prefetch did not send it, and the server
    /// may have answered it differently. On the package path the engine adds its own headers, so only
    /// ``varyingHeaders`` count there.
    static func plan(
        _ plan: PlannedPrefetch, answers request: EngineRequest, credentials: PrefetchRequest.Credentials,
        exactHeaders: Bool = false
    ) -> Bool {
        guard plan.method == request.method.uppercased(), plan.url == request.url, plan.credentials == credentials
        else { return false }
        for (name, value) in plan.headers where request.header(name) != value { return false }
        let declared = Set(plan.headers.map(\.name))
        if exactHeaders, request.headers.contains(where: { !declared.contains($0.name.lowercased()) }) { return false }
        return !request.headers.contains { header in
            let name = header.name.lowercased()
            return varyingHeaders.contains(name) && !declared.contains(name)
        }
    }
}

/// One request of a page's prefetch listing, as the page reads it.
struct PrefetchListing: Encodable {
    let method, url, credentials, state: String

    init(_ plan: PlannedPrefetch, state: String) {
        method = plan.method
        url = plan.url.absoluteString
        credentials = plan.credentials.rawValue
        self.state = state
    }
}
