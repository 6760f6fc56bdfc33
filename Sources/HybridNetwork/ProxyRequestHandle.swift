import HybridKit

/// Cancels one proxied request: the caller hears `.failed(.cancelled)` at once and the exchange stops (which closes
/// the connection if a response was streaming).
struct ProxyRequestHandle: ProxyCancelling {
    let sink: ProxyEventSink
    let control: ProxyControl

    func cancel() {
        sink.send(.failed(.cancelled))
        control.cancel()
    }
}
