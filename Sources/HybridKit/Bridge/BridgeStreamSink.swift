/// Where a stream method's elements go: `send(_:)` returns once the element is queued for the page, and
/// suspends while the page is a whole window behind (backpressure). It throws `CancellationError` once the page
/// stopped reading, navigated away or the bridge closed.
public final class BridgeStreamSink: Sendable {
    private weak let bridge: BridgeEngine?
    let token: String
    let id: Int

    init(bridge: BridgeEngine, token: String, id: Int) {
        self.bridge = bridge
        self.token = token
        self.id = id
    }

    /// Queues one element, already encoded as JSON.
    func send(_ json: String) async throws {
        try Task.checkCancellation()
        guard let bridge else { throw CancellationError() }
        try await bridge.streamElement(token: token, id: id, json: json)
    }

    /// Queues the last element: the stream ends with it.
    func finish(_ json: String) async throws {
        try Task.checkCancellation()
        guard let bridge else { throw CancellationError() }
        try await bridge.streamElement(token: token, id: id, json: json, last: true)
    }
}
