import Foundation

/// A navigation delegate that waits for one main-frame load to finish or fail.
final class LoadWaiter: NavigationDelegate, @unchecked Sendable {
    // Used on the engine's executor only.
    private var continuation: CheckedContinuation<Bool, Never>?

    func didFinishNavigation(to url: URL?) { settle(true) }
    func didFailNavigation(to url: URL?, error: String) { settle(false) }
    func webProcessDidTerminate(reason: WebProcessTerminationReason) { settle(false) }

    func settle(_ outcome: Bool) {
        continuation?.resume(returning: outcome)
        continuation = nil
    }

    func arm(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation = continuation }
}
