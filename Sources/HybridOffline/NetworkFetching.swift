import Foundation
import HybridCore

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
    func fetch(_ request: EngineRequest, events: @escaping @Sendable (NetworkFetchEvent) -> Void)
        -> any NetworkFetchCancelling
}
