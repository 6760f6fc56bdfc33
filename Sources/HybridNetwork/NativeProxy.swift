import AsyncHTTPClient
import Foundation
import HybridKit
import NIOCore

/// Native networking for pages (the "full proxy" strategy of the request hooks): performs each request with
/// AsyncHTTPClient under a ``ProxyPolicy``, follows redirects itself hop by hop with browser rules, keeps cookies in
/// the app's cookie handler (never in the client) and streams the response back as it arrives.
///
/// Note: the proxy answers the page whatever the target's CORS headers say; the policy's allowed hosts are what
/// limits which servers a page can read through it.
public struct NativeProxy: RequestProxying {
    public let policy: ProxyPolicy
    private let cookies: (any HTTPCookieHandling)?
    public var cookieHandler: (any HTTPCookieHandling)? { cookies }
    private let resolver: any HostResolving
    private let client: HTTPClient

    /// - Parameters:
    ///   - policy: which hosts and addresses the proxy may reach, and its size and time limits.
    ///   - cookies: the cookie jar's seam; nil sends no cookies and drops every Set-Cookie.
    ///   - resolver: how host names are resolved for the address check (the system resolver by default).
    public init(
        policy: ProxyPolicy, cookies: (any HTTPCookieHandling)? = nil,
        resolver: any HostResolving = GetAddrInfoResolver()
    ) {
        self.policy = policy
        self.cookies = cookies
        self.resolver = resolver
        client = ProxyHTTPClient.shared
    }

    public func perform(
        _ request: ProxiedRequest, events: @escaping @Sendable (ProxyEvent) -> Void
    ) -> any ProxyCancelling {
        let host = request.url.host(percentEncoded: false) ?? request.url.absoluteString
        let sink = ProxyEventSink(host: host, events)
        // The caller's own loop when it runs on one of the client's (the body channel's connections do): the
        // request's callbacks then start there without waking another thread. The connection upstream is any
        // pooled one. Pinning it to this loop too (`.delegateAndChannel`) measured slower, 1.23–1.53× against
        // 1.14–1.27× on two cores: the page's connection and upstream's then share one thread.
        let loop = client.eventLoopGroup.any()
        let exchange = ProxyExchange(
            request: request, policy: policy, cookies: cookies, resolver: resolver, client: client, loop: loop)
        let timeout = policy.timeout
        // The timer that ends the request at the policy's timeout, stopped when the exchange ends first (which may
        // be before the timer is armed).
        let deadline = CancelOnce<Scheduled<Void>> { $0.cancel() }
        let control = exchange.control
        // Queued on the loop even when the caller is on it: no event is delivered inside the caller's own stack,
        // whatever lock it holds there.
        loop.execute {
            exchange.run(sink) { deadline.cancel() }
        }
        // A timer on the request's event loop rather than a sleeping task beside the exchange.
        deadline.hold(
            loop.scheduleTask(in: TimeAmount(timeout)) {
                sink.send(
                    .failed(
                        .network(
                            "no complete answer from \(host) within \(timeout.components.seconds) s (the proxy's timeout)"
                        )))
                control.cancel()
            })
        return ProxyRequestHandle(sink: sink, control: control)
    }
}
