import Foundation

/// Keeps an observer registered until `cancel()` is called or the token is released.
public final class CookieObservation: Sendable {
    private let cancelAction: @Sendable () -> Void

    init(cancel: @escaping @Sendable () -> Void) {
        self.cancelAction = cancel
    }

    public func cancel() { cancelAction() }

    deinit { cancelAction() }
}

extension CookieJar {
    /// Calls `handler` for every change (added / updated / removed, with its cause), synchronously on
    /// the thread that changed the jar, after the jar's lock is released. Used to sync the engine's
    /// cookie store and `HTTPCookieStorage`. Keep the returned token alive as long as you observe.
    public func addObserver(_ handler: @escaping @Sendable (CookieChange) -> Void)
        -> CookieObservation
    {
        let id = observers.withLock { $0.add(handler) }
        return CookieObservation { [weak self] in
            self?.observers.withLock { $0.remove(id) }
        }
    }

    /// The same changes as an `AsyncStream`; the observer goes away when the stream is finished or dropped.
    public func changes(
        bufferingPolicy: AsyncStream<CookieChange>.Continuation.BufferingPolicy = .unbounded
    )
        -> AsyncStream<CookieChange>
    {
        let (stream, continuation) = AsyncStream.makeStream(
            of: CookieChange.self, bufferingPolicy: bufferingPolicy)
        let observation = addObserver { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }
}
