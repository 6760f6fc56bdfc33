import Foundation
import HybridPackages
import Logging
import Metrics
import Synchronization

/// One page's boot trials (``BootSafety``): the first main-frame load of the package's pages while its active
/// version is on trial opens the trial, recorded before the document is requested. The open then runs until the
/// page's confirmation, a failure (deadline, dead process, blank page) or the page closing: reloads and navigations
/// do not end it or restart its deadline, which counts from the attempt's first open (``BootGuard/timeLeft(_:)``).
/// Only a main-frame document of the version on trial, committed after the open started, may confirm: the previous
/// version's document (its `pagehide`, its timers) and frames cannot.
nonisolated final class BootTrialSession: PageFeatureSession, Sendable {
    private let trials: BootGuard
    private let packageID: String
    private let mapping: OfflineURLMapping
    private let open = Mutex<Open?>(nil)
    private let logger = Logger(label: "hybrid.packages")

    /// An open in progress, and the timer that fails it at the deadline.
    private struct Open {
        let number: Int
        /// The version on trial this open watches: a confirmation counts for it only.
        let version: SemanticVersion
        let deadline: Task<Void, Never>
        /// Whether the main frame's current document may confirm: set when a document of the package commits while
        /// `version` serves, cleared when the next load starts (the old document runs on until the commit).
        var documentMayConfirm = false
    }
    private let opens = Atomic<Int>(0)

    init(trials: BootGuard, packageID: String, route: OfflineRoute) {
        self.trials = trials
        self.packageID = packageID
        mapping = OfflineURLMapping(route: route)
    }

    func mainFrameWillLoad(_ url: URL) {
        let continuing = open.withLock { current -> Bool in
            guard current != nil else { return false }
            current?.documentMayConfirm = false
            return true
        }
        // A reload or navigation within the trial is not a fresh start: the open and its deadline run on.
        if continuing {
            if !trials.isOnTrial(packageID) { end(with: nil) }  // decided elsewhere (another page, a rollback)
            return
        }
        guard mapping.packageURL(for: url) != nil, trials.isOnTrial(packageID) else { return }
        let decision: BootDecision
        do { decision = try trials.willOpen(packageID) } catch {
            // Still watched: the deadline runs from memory, and its failure tries the rollback again.
            logger.error(
                "could not record a boot trial; watching it in memory only. Make the package store writable",
                metadata: ["id": "\(packageID)", "error": "\(error)"])
            guard let version = trials.store.activeVersion(packageID) else { return }
            start(version, timeLeft: trials.policy.deadline)
            return
        }
        switch decision {
        case .serve(_, onTrial: false): return
        case .rolledBack(let from, let to, let reason):
            // The app died during an earlier open, or the attempt ran out: the good version serves this load already.
            report(from: from, to: to, reason: reason)
            return
        case .serve(let version, onTrial: true):
            start(version, timeLeft: trials.timeLeft(packageID) ?? trials.policy.deadline)
            logger.info("package on trial opened", metadata: ["id": "\(packageID)", "version": "\(version)"])
        }
    }

    func mainFrameDidCommit(_ url: URL) {
        // The bridge has dropped the old document's calls by now; what confirms from here on is this document.
        let servedVersion = trials.store.activeVersion(packageID)
        let ofPackage = mapping.packageURL(for: url) != nil
        open.withLock { current in
            guard let version = current?.version else { return }
            current?.documentMayConfirm = ofPackage && servedVersion == version
        }
    }

    /// The page called `hybridPackages.ready()`. Throws (the page's promise rejects) when the caller cannot vouch
    /// for the version on trial.
    func confirm(from context: CallContext) throws {
        guard context.isMainFrame else {
            logger.warning(
                "boot confirmation refused: it came from a frame; call hybridPackages.ready() from the main frame",
                metadata: ["id": "\(packageID)"])
            throw BridgeError.denied("only the page's main frame may confirm it booted")
        }
        enum Verdict { case confirm(Open), refuse, nothingOpen }
        let verdict = open.withLock { current -> Verdict in
            guard let taken = current else { return .nothingOpen }
            guard taken.documentMayConfirm else { return .refuse }
            current = nil
            return .confirm(taken)
        }
        switch verdict {
        case .confirm(let taken):
            taken.deadline.cancel()
            do { try trials.confirm(packageID, version: taken.version) } catch {
                logger.error("could not record a boot", metadata: ["id": "\(packageID)", "error": "\(error)"])
            }
        case .nothingOpen where !trials.isOnTrial(packageID):
            return  // Nothing on trial: a confirmed version may say so again.
        case .refuse, .nothingOpen:
            logger.warning(
                """
                boot confirmation refused: the calling document was not loaded from the version on trial in this \
                open (an earlier document, or one left before the update); call hybridPackages.ready() from the new \
                version's page once it has loaded
                """,
                metadata: ["id": "\(packageID)"])
            throw BridgeError.denied("this document was not loaded from the package version on trial")
        }
    }

    func pageFailed(_ trigger: RecoveryTrigger) {
        switch trigger {
        case .processTerminated: end(with: .webProcessTerminated)
        case .blankPage: end(with: .blankPage)
        }
    }

    func close() { end(with: nil) }

    private func start(_ version: SemanticVersion, timeLeft: Duration) {
        let number = opens.add(1, ordering: .relaxed).newValue
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeLeft)) != nil else { return }
            self?.end(with: .notConfirmed, open: number)
        }
        let previous = open.withLock { current -> Open? in
            defer { current = Open(number: number, version: version, deadline: timer) }
            return current
        }
        previous?.deadline.cancel()
    }

    /// Ends the open in progress (only `open` when given): with a failure, or without a verdict when nil.
    private func end(with failure: BootFailure?, open number: Int? = nil) {
        guard let current = take(open: number) else { return }
        current.deadline.cancel()
        do {
            guard let failure else { return try trials.openEnded(packageID) }
            if case .rolledBack(let from, let to, let reason) = try trials.openFailed(packageID, reason: failure) {
                report(from: from, to: to, reason: reason)
            } else {
                logger.warning(
                    "package on trial failed to open", metadata: ["id": "\(packageID)", "reason": "\(failure)"])
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
