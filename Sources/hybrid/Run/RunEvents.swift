import Foundation
import HybridKit

/// Hears the page under `hybrid run` and prints what a developer needs: loads, failed requests (main document
/// and sub-resources), blocked navigations, links handed out, recoveries, on the engine's actor.
final class RunEvents: NavigationDelegate, NavigationPolicyHost, PageRecoveryDelegate {
    enum FirstLoad: Equatable {
        case pending
        case finished
        case failed(String)
    }

    private(set) var firstLoad = FirstLoad.pending

    // MARK: NavigationDelegate

    func didFinishNavigation(to url: URL?) {
        // The view's empty first document is not the app's page (which is never about:).
        guard url?.scheme != "about" else { return }
        // WebKitGTK also ends a failed load with a finish that has no URL: the failure was already said.
        guard let url else { return }
        if firstLoad == .pending { firstLoad = .finished }
        Terminal.line("loaded  \(Terminal.safe(url.absoluteString))")
    }

    func didFailNavigation(to url: URL?, error: String) {
        Terminal.failedRequest(url, error)
        if firstLoad == .pending { firstLoad = .failed(error) }
    }

    func webProcessDidTerminate(reason: WebProcessTerminationReason) {
        Terminal.line("ended   the web process ended (\(reason)); recovery reloads the page")
    }

    // MARK: NavigationPolicyHost

    func didFailSubresourceLoad(_ failure: SubresourceLoadFailure) {
        Terminal.failedRequest(failure.url, failure.error)
    }

    func didBlockNavigation(to url: URL, reason: String) {
        Terminal.line("blocked \(Terminal.safe(url.absoluteString))  \(Terminal.safe(reason))")
    }

    func openExternally(_ link: ExternalLink) {
        Terminal.line("link    \(Terminal.safe(link.url.absoluteString)) would open outside the app")
    }

    func openInNewContainer(_ request: NewWindowRequest) {
        Terminal.line("window  \(Terminal.safe(request.url.absoluteString)) asked for a new window")
    }

    // MARK: PageRecoveryDelegate

    func pageRecovered(_ report: RecoveryReport) {
        Terminal.line("recover \(report.reason), attempt \(report.attempt)")
    }

    func pageRecoveryGaveUp(attempts: Int, trigger: RecoveryTrigger) {
        Terminal.line("recover gave up after \(attempts) attempts (\(trigger))")
    }
}
