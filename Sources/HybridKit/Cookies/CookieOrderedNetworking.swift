import Foundation
import Synchronization

/// Passes a fetch's or a proxied request's events on in order, holding everything from the response on until the
/// page's `document.cookie` shows what the response set (``CookieDeliveryGate``): a page's `fetch` resolves, and
/// its XHR reaches `HEADERS_RECEIVED`, only after `document.cookie` has the cookies.
final class ResponseHold<Event: Sendable>: Sendable {
    private let state = Mutex<(holding: Bool, queue: [Event])>((false, []))
    private let gate: CookieDeliveryGate
    private let forward: @Sendable (Event) -> Void

    init(gate: CookieDeliveryGate, forward: @escaping @Sendable (Event) -> Void) {
        self.gate = gate
        self.forward = forward
    }

    func receive(_ event: Event, isResponse: Bool) {
        let passes = state.withLock { state -> Bool in
            guard state.holding || isResponse else { return true }
            state.holding = true
            state.queue.append(event)
            return false
        }
        if passes { return forward(event) }
        if isResponse { gate.whenDelivered { [self] in release() } }
    }

    /// Forwards what was held, and what arrives while it does, then lets events through again.
    private func release() {
        while true {
            let batch = state.withLock { state -> [Event] in
                if state.queue.isEmpty { state.holding = false }
                defer { state.queue.removeAll() }
                return state.queue
            }
            if batch.isEmpty { return }
            for event in batch { forward(event) }
        }
    }
}

/// A package handler's network, with responses held for the page's `document.cookie`.
struct CookieOrderedFetcher: NetworkFetching {
    let base: any NetworkFetching
    let gate: CookieDeliveryGate

    var readsBodySource: Bool { base.readsBodySource }

    func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        let hold = ResponseHold(gate: gate, forward: events)
        return base.fetch(request, followRedirects: followRedirects) { event in
            let isResponse = if case .response = event { true } else { false }
            hold.receive(event, isResponse: isResponse)
        }
    }
}

/// The native proxy, with responses held for the page's `document.cookie`.
struct CookieOrderedProxy: RequestProxying {
    let base: any RequestProxying
    let gate: CookieDeliveryGate

    func perform(_ request: ProxiedRequest, events: @escaping @Sendable (ProxyEvent) -> Void) -> any ProxyCancelling {
        let hold = ResponseHold(gate: gate, forward: events)
        return base.perform(request) { event in
            let isResponse = if case .response = event { true } else { false }
            hold.receive(event, isResponse: isResponse)
        }
    }
}
