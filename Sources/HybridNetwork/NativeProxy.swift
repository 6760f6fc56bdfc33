import AsyncHTTPClient
import Foundation
import HybridKit
import NIOCore
import Synchronization

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
        let exchange = ProxyExchange(
            request: request, policy: policy, cookies: cookies, resolver: resolver, client: client)
        let timeout = policy.timeout
        let deadline = ProxyDeadline()
        let task = Task {
            await exchange.run(sink)
            deadline.cancel()
        }
        // A timer on the client's event loop rather than a sleeping task beside the exchange's: one task per
        // request instead of a group of three, on a path a hooked POST waits on.
        deadline.arm(
            HTTPClient.defaultEventLoopGroup.next().scheduleTask(in: TimeAmount(timeout)) {
                sink.send(
                    .failed(
                        .network(
                            "no complete answer from \(host) within \(timeout.components.seconds) s (the proxy's timeout)"
                        )))
                task.cancel()
            })
        return ProxyRequestHandle(sink: sink, task: task)
    }
}

/// The timer that ends a proxied request at the policy's timeout, cancelled when the exchange ends first (which may
/// be before the timer is armed).
private final class ProxyDeadline: Sendable {
    private struct State {
        var timer: Scheduled<Void>?
        var done = false
    }

    private let state = Mutex(State())

    func arm(_ timer: Scheduled<Void>) {
        let done = state.withLock { state in
            if !state.done { state.timer = timer }
            return state.done
        }
        if done { timer.cancel() }
    }

    func cancel() {
        let timer = state.withLock { state in
            state.done = true
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }
}
