import Foundation
import Synchronization

/// A package handler's network with the app's ``HTTPResponseCache`` in front: fresh stored answers never reach
/// the network, stale ones are revalidated, and what comes back is stored when RFC 9111 allows it.
struct CachingNetworkFetcher: NetworkFetching {
    let base: any NetworkFetching
    let cache: HTTPResponseCache
    /// The jar `base` sends cookies from, so a stored response answers only the cookie state it was fetched with.
    let cookies: (any HTTPCookieHandling)?

    var readsBodySource: Bool { base.readsBodySource }

    /// Request headers that make the page's request one this cache does not answer (ranges, its own
    /// conditionals): it goes to the network as it is.
    static let bypassing = [
        "range", "if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range",
    ]

    func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        let method = request.method.uppercased()
        guard method == "GET" else {
            if method != "HEAD" && method != "OPTIONS" { cache.invalidate(request.url) }
            return base.fetch(request, followRedirects: followRedirects, events: events)
        }
        let control = CacheControl(request.header("Cache-Control"))
        let pragmaNoCache = request.header("Pragma")?.lowercased().contains("no-cache") == true
        guard !control.noStore, !request.headers.contains(where: { Self.bypassing.contains($0.name.lowercased()) })
        else { return base.fetch(request, followRedirects: followRedirects, events: events) }
        let credentials = HTTPResponseCache.credentialState(
            cookieHeader: cookies?.cookieHeader(
                for: request.url, firstParty: nil, method: "GET", includeHTTPOnly: true),
            authorization: request.header("Authorization"))
        let now = Date()
        if let stored = cache.lookup(request, credentials: credentials) {
            let age = stored.age(now: now)
            let storedControl = CacheControl(CacheRules.header("Cache-Control", in: stored.headers))
            let fresh =
                !control.noCache && !pragmaNoCache && !storedControl.noCache
                && age + TimeInterval(control.minFresh ?? 0) < stored.lifetime
                && control.maxAge.map { age <= TimeInterval($0) } ?? true
            if fresh {
                cache.count("hit")
                Self.replay(stored, age: age, to: events)
                return Done()
            }
            if !stored.validators.isEmpty {
                var conditional = request
                conditional.headers += stored.validators
                return forward(
                    conditional, original: request, as: credentials, revalidating: stored,
                    followRedirects: followRedirects, events: events)
            }
        }
        cache.count("miss")
        return forward(
            request, original: request, as: credentials, revalidating: nil, followRedirects: followRedirects,
            events: events)
    }

    private static func replay(
        _ stored: HTTPResponseCache.Stored, age: TimeInterval, to events: @Sendable (NetworkFetchEvent) -> Void
    ) {
        // The server's own `Age` (in whatever case) is part of the age computed here: one header, ours.
        var headers = stored.headers.filter { $0.key.caseInsensitiveCompare("Age") != .orderedSame }
        headers["Age"] = String(Int(age))
        events(
            .response(SchemeResponse(statusCode: stored.status, headers: headers, expectedLength: stored.body.count)))
        if !stored.body.isEmpty { events(.data(stored.body)) }
        events(.finished)
    }

    /// Sends `request` on, passing its answer through while keeping a copy to store; a 304 to a revalidation
    /// refreshes the stored response and answers with it.
    /// The caller's `followRedirects` passes through: a main document or a `redirect: 'error'` fetch must see the
    /// redirect itself, and redirects and what they led to are never stored.
    private func forward(
        _ request: EngineRequest, original: EngineRequest, as credentials: String,
        revalidating stored: HTTPResponseCache.Stored?, followRedirects: Bool,
        events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        let copy = Mutex<(head: SchemeResponse?, body: Data, tooLarge: Bool, notModified: Bool)>(
            (nil, Data(), false, false))
        let requestTime = Date()
        let cache = self.cache
        return base.fetch(request, followRedirects: followRedirects) { event in
            switch event {
            case .response(let head):
                if let stored, head.statusCode == 304 {
                    copy.withLock { $0.notModified = true }
                    // §4.3.4: the stored response's headers, updated with the 304's.
                    var headers = stored.headers
                    for (name, value) in head.headers
                    where name.caseInsensitiveCompare("Content-Length") != .orderedSame {
                        headers = headers.filter { $0.key.caseInsensitiveCompare(name) != .orderedSame }
                        headers[name] = value
                    }
                    cache.store(
                        original, credentials: credentials, status: stored.status, headers: headers, body: stored.body,
                        requestTime: requestTime, responseTime: Date())
                    cache.count("revalidated")
                    var refreshed = stored
                    refreshed.headers = headers
                    Self.replay(refreshed, age: 0, to: events)
                    return
                }
                copy.withLock { $0.head = head.redirection == nil ? head : nil }
                events(event)
            case .data(let data):
                guard !copy.withLock({ $0.notModified }) else { return }
                copy.withLock { copy in
                    guard copy.head != nil, !copy.tooLarge else { return }
                    copy.body.append(data)
                    if copy.body.count > cache.maximumEntryBytes {
                        copy.tooLarge = true
                        copy.body = Data()
                    }
                }
                events(event)
            case .finished:
                let (head, body, tooLarge, notModified) = copy.withLock {
                    ($0.head, $0.body, $0.tooLarge, $0.notModified)
                }
                guard !notModified else { return }
                if let head, !tooLarge {
                    cache.store(
                        original, credentials: credentials, status: head.statusCode, headers: head.headers, body: body,
                        requestTime: requestTime, responseTime: Date())
                }
                events(event)
            case .failed:
                guard !copy.withLock({ $0.notModified }) else { return }
                events(event)
            }
        }
    }

    private struct Done: NetworkFetchCancelling { func cancel() {} }
}
