import Foundation
import HybridPackages
import Logging
import Metrics
import Synchronization

/// One page's boot trials (``BootSafety``): each main-frame load of the package's pages while its active version
/// is on trial is an open, recorded before the document is requested; the open ends with the page's
/// confirmation, a failure (deadline, dead process, blank page) or the page closing.
final class BootTrialSession: PageFeatureSession, Sendable {
    private let trials: BootGuard
    private let packageID: String
    private let mapping: OfflineURLMapping
    private let open = Mutex<Open?>(nil)
    private let logger = Logger(label: "hybrid.packages")

    /// An open in progress, and the timer that fails it at the deadline.
    private struct Open {
        let number: Int
        let deadline: Task<Void, Never>
    }
    private let opens = Atomic<Int>(0)

    init(trials: BootGuard, packageID: String, route: OfflineRoute) {
        self.trials = trials
        self.packageID = packageID
        mapping = OfflineURLMapping(route: route)
    }

    func mainFrameWillLoad(_ url: URL) {
        // A new document ends an open still in progress, neither booted nor failed.
        end(with: nil)
        guard mapping.packageURL(for: url) != nil, trials.isOnTrial(packageID) else { return }
        let decision: BootDecision
        do { decision = try trials.willOpen(packageID) } catch {
            logger.error("could not record a boot trial", metadata: ["id": "\(packageID)", "error": "\(error)"])
            return
        }
        switch decision {
        case .serve(_, onTrial: false): return
        case .rolledBack(let from, let to, let reason):
            // The app died during an earlier open: the good version serves this load already.
            report(from: from, to: to, reason: reason)
            return
        case .serve(let version, onTrial: true):
            let number = opens.add(1, ordering: .relaxed).newValue
            let deadline = trials.policy.deadline
            let timer = Task { [weak self] in
                guard (try? await Task.sleep(for: deadline)) != nil else { return }
                self?.end(with: .notConfirmed, open: number)
            }
            logger.info("package on trial opened", metadata: ["id": "\(packageID)", "version": "\(version)"])
            open.withLock { $0 = Open(number: number, deadline: timer) }
        }
    }

    /// The page called `hybridPackages.ready()`.
    func confirm() {
        guard let current = take(open: nil) else { return }
        current.deadline.cancel()
        do { try trials.confirm(packageID) } catch {
            logger.error("could not record a boot", metadata: ["id": "\(packageID)", "error": "\(error)"])
        }
    }

    func pageFailed(_ trigger: RecoveryTrigger) {
        switch trigger {
        case .processTerminated: end(with: .webProcessTerminated)
        case .blankPage: end(with: .blankPage)
        }
    }

    func close() { end(with: nil) }

    /// Ends the open in progress (only `open` when given): with a failure, or without a verdict when nil.
    private func end(with failure: BootFailure?, open number: Int? = nil) {
        guard let current = take(open: number) else { return }
        current.deadline.cancel()
        do {
            guard let failure else { return try trials.openEnded(packageID) }
            if case .rolledBack(let from, let to, let reason) = try trials.openFailed(packageID, reason: failure) {
                report(from: from, to: to, reason: reason)
            } else {
                logger.warning("package on trial failed to open", metadata: ["id": "\(packageID)", "reason": "\(failure)"])
            }
        } catch {
            logger.error("could not record a failed open", metadata: ["id": "\(packageID)", "error": "\(error)"])
        }
    }

    private func take(open number: Int?) -> Open? {
        open.withLock { current in
            guard let taken = current, number == nil || taken.number == number else { return nil }
            current = nil
            return taken
        }
    }

    private func report(from: SemanticVersion, to: SemanticVersion, reason: BootFailure) {
        logger.warning(
            "package version rolled back",
            metadata: ["id": "\(packageID)", "from": "\(from)", "to": "\(to)", "reason": "\(reason)"])
        Counter(label: HybridMetrics.bootRollbacks, dimensions: [("reason", reason.rawValue)]).increment()
    }
}
