import Foundation
import Synchronization

/// The native proxy (the request hooks' full-proxy strategy) with the app's ``HTTPResponseCache`` in front, the
/// same instance the package network uses: fresh stored GETs never reach the network, stale ones are revalidated.
///
/// Only requests that follow redirects and send credentials are answered from or stored in the cache: the jar's
/// cookies went with every stored response, so a `credentials: 'omit'` request, which must not get a credentialed
/// answer, always goes to the network.
public struct CachingProxy: RequestProxying {
    public let base: any RequestProxying
    public let cache: HTTPResponseCache
    public var cookieHandler: (any HTTPCookieHandling)? { base.cookieHandler }

    public init(_ base: any RequestProxying, cache: HTTPResponseCache) {
        self.base = base
        self.cache = cache
    }

    public func perform(_ request: ProxiedRequest, events: @escaping @Sendable (ProxyEvent) -> Void)
        -> any ProxyCancelling
    {
        guard request.credentials != .omit, request.redirect == .follow, request.streamedBody == nil else {
            if request.method.uppercased() != "GET" { cache.invalidate(request.url) }
            return base.perform(request, events: events)
        }
        var asked = EngineRequest(url: request.url, method: request.method)
        asked.headers = request.headers
        let errors = ProxyErrors()
        let fetcher = CachingNetworkFetcher(
            base: ProxyAsFetcher(base: base, template: request, errors: errors), cache: cache,
            cookies: base.cookieHandler)
        let fetch = fetcher.fetch(asked, followRedirects: true) { event in
            switch event {
            case .response(let head):
                events(
                    .response(
                        ProxiedResponseHead(
                            statusCode: head.statusCode, reasonPhrase: head.reasonPhrase ?? "",
                            headers: head.headers.map { ($0.key, $0.value) }, url: head.redirection?.url ?? request.url,
                            redirected: head.redirection != nil, bodyResends: head.redirection?.bodyResends ?? 0)))
            case .data(let data): events(.data(data))
            case .finished: events(.finished)
            case .failed(let message): events(.failed(errors.take(message)))
            }
        }
        return ProxyFetchCancel(fetch: fetch)
    }
}

/// The proxy's own error of one request, kept whole through the fetcher's string failure.
private final class ProxyErrors: Sendable {
    private let last = Mutex<(message: String, error: ProxyError)?>(nil)

    func keep(_ error: ProxyError, as message: String) { last.withLock { $0 = (message, error) } }

    func take(_ message: String) -> ProxyError {
        last.withLock { last in
            defer { last = nil }
            return last?.message == message ? last?.error ?? .network(message) : .network(message)
        }
    }
}

private struct ProxyFetchCancel: ProxyCancelling {
    let fetch: any NetworkFetchCancelling
    func cancel() { fetch.cancel() }
}

/// The proxy seen as a ``NetworkFetching`` (what the cache's fetcher wraps): each fetch is the proxied request with
/// the URL, method and headers the cache chose (its validators added), its body, credentials and first party kept.
private struct ProxyAsFetcher: NetworkFetching {
    let base: any RequestProxying
    let template: ProxiedRequest
    let errors: ProxyErrors

    func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        var proxied = template
        proxied.url = request.url
        proxied.method = request.method
        proxied.headers = request.headers
        let performed = base.perform(proxied) { event in
            switch event {
            case .response(let head):
                var headers: [String: String] = [:]
                for (name, value) in head.headers {
                    let key = headers.keys.first { $0.caseInsensitiveCompare(name) == .orderedSame } ?? name
                    headers[key] = headers[key].map { $0 + ", " + value } ?? value
                }
                var response = SchemeResponse(statusCode: head.statusCode, headers: headers)
                response.reasonPhrase = head.reasonPhrase
                if head.redirected {
                    response.redirection = SchemeResponse.Redirection(url: head.url, bodyResends: head.bodyResends)
                }
                events(.response(response))
            case .data(let data): events(.data(data))
            case .finished: events(.finished)
            case .failed(let error):
                let message = error.description
                errors.keep(error, as: message)
                events(.failed(message))
            }
        }
        return Cancel(performed: performed)
    }

    private struct Cancel: NetworkFetchCancelling {
        let performed: any ProxyCancelling
        func cancel() { performed.cancel() }
    }
}
