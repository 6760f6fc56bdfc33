import Foundation
import Logging
import Synchronization

/// A package handler's network with first-screen prefetch in front: a request the page's main frame stamped
/// (see ``PrefetchAnswers``) that matches a prefetch for the page gets the prefetch's response, streamed if it is
/// still arriving; everything else, and every request once its stamp is removed, goes to `base` as it came.
///
/// Sits inside ``CookieOrderedFetcher``, so a prefetched response is held for `document.cookie` exactly as a
/// fetched one is; the prefetch's `Set-Cookie` values reach the jar when its head is handed over.
struct PrefetchAnsweringFetcher: NetworkFetching {
    let base: any NetworkFetching
    let answers: PrefetchAnswers

    var readsBodySource: Bool { base.readsBodySource }

    func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        var unstamped = request
        let stamp = request.header(PrefetchAnswers.stampHeader)
        unstamped.headers.removeAll { $0.name.caseInsensitiveCompare(PrefetchAnswers.stampHeader) == .orderedSame }
        let request = unstamped
        guard let stamp, let credentials = answers.credentials(vouchedBy: stamp), let page = answers.currentPage,
            originMatches(request)
        else { return base.fetch(request, followRedirects: followRedirects, events: events) }
        if request.url.path.hasPrefix(PrefetchAnswers.ownPath) {
            return ownRequest(request, page: page, events: events)
        }
        let prefetcher = answers.prefetcher
        guard followRedirects else {
            prefetcher.metrics.count(.miss)
            return base.fetch(request, followRedirects: followRedirects, events: events)
        }
        let claim = PrefetchClaim(entry: nil)
        let entry = answers.claim(
            request, credentials: credentials, page: page, document: answers.document, events: events,
            fallback: { [base] why in
                prefetcher.metrics.count(.fallback)
                Logger(label: "hybrid.prefetch").notice(
                    "prefetch given up while the page waited; its request goes to the network",
                    metadata: ["url": "\(request.url.absoluteString)", "why": "\(why)"])
                claim.replace(with: base.fetch(request, followRedirects: true, events: events))
            })
        guard let entry else { return base.fetch(request, followRedirects: followRedirects, events: events) }
        claim.attach(entry)
        return claim
    }

    /// A request on another origin than the site's pages (an `Origin` header naming another) never takes one.
    private func originMatches(_ request: EngineRequest) -> Bool {
        guard let origin = request.header("Origin") else { return true }
        return origin.lowercased() == answers.prefetcher.pageOrigin
    }

    /// The page's script reading what was prefetched for it, or reporting its first screen.
    private func ownRequest(
        _ request: EngineRequest, page: URL, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        var body = Data("{}".utf8)
        if request.url.path == PrefetchAnswers.ownPath + "/first-screen" {
            answers.markFirstScreen(on: page)
        } else {
            body = (try? JSONEncoder().encode(answers.listing(on: page))) ?? Data("[]".utf8)
        }
        events(
            .response(
                SchemeResponse(
                    statusCode: 200, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                    expectedLength: body.count)))
        events(.data(body))
        events(.finished)
        return PrefetchClaim(entry: nil)
    }
}

/// The page's request answered from a prefetch: cancelling it cancels the prefetch, or the network fetch that
/// replaced it.
final class PrefetchClaim: NetworkFetchCancelling {
    private let state: Mutex<(entry: PrefetchEntry?, replacement: (any NetworkFetchCancelling)?, cancelled: Bool)>

    init(entry: PrefetchEntry?) { state = Mutex((entry, nil, false)) }

    /// The entry claimed for the page, once it is (a fallback may have replaced it already: then nothing).
    func attach(_ entry: PrefetchEntry) {
        let cancelled = state.withLock { state -> Bool in
            if state.replacement == nil { state.entry = entry }
            return state.cancelled && state.replacement == nil
        }
        if cancelled { entry.cancelByPage() }
    }

    func replace(with fetch: any NetworkFetchCancelling) {
        let cancelled = state.withLock { state -> Bool in
            state.replacement = fetch
            state.entry = nil
            return state.cancelled
        }
        if cancelled { fetch.cancel() }
    }

    func cancel() {
        let (entry, replacement) = state.withLock { state in
            state.cancelled = true
            return (state.entry, state.replacement)
        }
        entry?.cancelByPage()
        replacement?.cancel()
    }
}
