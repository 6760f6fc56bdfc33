import Foundation
import Synchronization

/// A navigation delegate that waits for one main-frame load to finish or fail.
final class LoadWaiter: NavigationDelegate, Sendable {
    private let continuation = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func didFinishNavigation(to url: URL?) { settle(true) }
    func didFailNavigation(to url: URL?, error: String) { settle(false) }
    func webProcessDidTerminate(reason: WebProcessTerminationReason) { settle(false) }

    func settle(_ outcome: Bool) {
        continuation.withLock { $0.take() }?.resume(returning: outcome)
    }

    func arm(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation.withLock { $0 = continuation } }
}
