import Foundation
import HybridKit

/// The network behind package misses, with a terminal line for each answer of 400 or more: the engine reports
/// requests that fail, not those a server refuses, and a developer wants to see both. (Failures are not
/// printed here: the engine reports them, and each failed request gets one line.)
struct ErrorStatusLog: NetworkFetching {
    let inner: any NetworkFetching

    var readsBodySource: Bool { inner.readsBodySource }

    func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        let url = request.url
        let method = request.method
        return inner.fetch(request, followRedirects: followRedirects) { event in
            if case .response(let response) = event, response.statusCode >= 400 {
                Terminal.failedRequest(url, "\(method) answered HTTP \(response.statusCode)")
            }
            events(event)
        }
    }
}
