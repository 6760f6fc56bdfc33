import Foundation

/// What a network fetch reports, in order: one `response`, any number of `data`, then `finished`; or `failed`
/// at any point.
public enum NetworkFetchEvent: Sendable, Equatable {
    case response(SchemeResponse)
    case data(Data)
    case finished
    case failed(String)
}

/// A fetch in flight, so the handler can cancel it when the engine stops the task.
public protocol NetworkFetchCancelling: Sendable {
    func cancel()
}

/// The network behind a package miss. A protocol so tests can stand in for URLSession.
public protocol NetworkFetching: Sendable {
    /// Starts fetching `request` (an http(s) URL) and reports to `events` on any thread, as data arrives.
    ///
    /// With `followRedirects` false a 3xx answer is reported as the response itself (status, `Location`, body),
    /// so the handler can move the main document to the final URL instead of showing it under the first one.
    func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling

    /// Whether ``fetch(_:followRedirects:events:)`` sends ``EngineRequest/bodySource`` when `body` is nil. A
    /// package handler over a fetcher that does not gets requests with the whole body in `body` (the default).
    var readsBodySource: Bool { get }
}

extension NetworkFetching {
    public var readsBodySource: Bool { false }

    /// Fetches following redirects, as sub-resources do.
    public func fetch(_ request: EngineRequest, events: @escaping @Sendable (NetworkFetchEvent) -> Void)
        -> any NetworkFetchCancelling
    {
        fetch(request, followRedirects: true, events: events)
    }
}
