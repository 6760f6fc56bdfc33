import HybridKit

/// Cancels one proxied request: the caller hears `.failed(.cancelled)` at once and the exchange's task stops
/// (which closes the connection if a response was streaming).
struct ProxyRequestHandle: ProxyCancelling {
    let sink: ProxyEventSink
    let task: Task<Void, Never>

    func cancel() {
        sink.send(.failed(.cancelled))
        task.cancel()
    }
}
