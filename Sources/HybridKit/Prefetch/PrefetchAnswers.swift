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

    func noteUsed(_ plan: PlannedPrefetch, on page: URL) {
        usedPlans.withLock { used in
            used.append((page, plan))
            if used.count > 64 { used.removeFirst(used.count - 64) }
        }
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

    /// Headers a page's request may carry only if the prefetch declared them with the same value: they change
    /// what the server answers.
    static let varyingHeaders: Set<String> = [
        "authorization", "range", "if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range",
    ]

    /// Whether `plan` is what `request` (made with `credentials`) asks for.
    static func plan(
        _ plan: PlannedPrefetch, answers request: EngineRequest, credentials: PrefetchRequest.Credentials
    ) -> Bool {
        guard plan.method == request.method.uppercased(), plan.url == request.url, plan.credentials == credentials
        else { return false }
        for (name, value) in plan.headers where request.header(name) != value { return false }
        let declared = Set(plan.headers.map(\.name))
        return !request.headers.contains { header in
            let name = header.name.lowercased()
            return varyingHeaders.contains(name) && !declared.contains(name)
        }
    }
}
