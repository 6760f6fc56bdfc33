/// Keeps an observer of a ``RemoteConfigStore`` registered until `cancel()`.
public struct ConfigObservation: Sendable {
    let cancelAction: @Sendable () -> Void
    public func cancel() { cancelAction() }
}
