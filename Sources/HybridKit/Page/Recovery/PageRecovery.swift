import Foundation
import Logging
import Metrics

/// Applies the white-screen ``RecoveryMachine`` to one engine: hears deaths and loads, reloads the right way
/// (`loadFile` for file pages, `reload` otherwise, the host's HTML again for HTML pages), waits while hidden,
/// probes for blank pages, and tells its delegate when a page came back.
///
/// Runs on the engine's actor. Feed it the engine's navigation events (the container does).
@EngineActor
public final class PageRecovery {

    private weak var engine: (any WebEngine)?
    public weak var delegate: (any PageRecoveryDelegate)?
    private var machine: RecoveryMachine
    private var location: PageLocation?
    /// The title the page had when its last load finished or was last found alive.
    private var expectedTitle: String?
    private var diedHidden = false
    private let logger = Logger(label: "hybrid.recovery")
    /// Recovery loads started, for tests and telemetry.
    public private(set) var reloads = 0
    public private(set) var recoveries = 0

    public init(engine: any WebEngine, policy: RecoveryPolicy = RecoveryPolicy(), isVisible: Bool = true) {
        self.engine = engine
        self.machine = RecoveryMachine(policy: policy, isVisible: isVisible)
    }

    private var stopped = false

    public var phase: RecoveryMachine.Phase { machine.phase }

    /// Ends recovery for good (the page is closing): nothing scheduled will reload the view, which may be about
    /// to show another page.
    public func stop() {
        stopped = true
        delegate = nil
    }
    /// The title the page had when its last load finished or was last found alive; an empty title later means a
    /// white screen.
    public var expectedPageTitle: String? { expectedTitle }

    public func setDelegate(_ delegate: (any PageRecoveryDelegate)?) { self.delegate = delegate }

    // MARK: Events

    /// The host loads `location`: the previous page's troubles are forgotten.
    public func hostWillLoad(_ location: PageLocation) {
        self.location = location
        expectedTitle = nil
        machine.reset()
    }

    public func webProcessDidTerminate(reason: WebProcessTerminationReason) {
        pageDied(.processTerminated(reason))
    }

    public func loadFinished() {
        expectedTitle = engine?.title
        apply(machine.loadFinished(at: .now))
    }

    public func loadFailed() {
        apply(machine.loadFailed())
    }

    public func setVisible(_ visible: Bool) {
        apply(machine.visibilityChanged(visible))
    }

    /// Checks a page that gave no signal (call it when the page is shown, or on a timer). Returns why the page
    /// was found blank (recovery then starts), or nil when it looks alive.
    @discardableResult
    public func checkForBlankPage() async -> String? {
        guard !stopped, case .healthy = machine.phase, let engine else { return nil }
        var report: BlankPageProbe.Report?
        let policy = machine.policy
        if policy.probesBody {
            report = BlankPageProbe.report(
                fromEvaluationResult: try? await engine.evaluateJavaScript(BlankPageProbe.script))
        }
        guard
            let why = BlankPageProbe.verdict(
                engineTitle: engine.title, expectedTitle: expectedTitle, probe: report, probed: policy.probesBody,
                policy: policy)
        else {
            // WebKitGTK may report the title only after the load finished: learn it from a page found alive.
            if let title = engine.title, !title.isEmpty { expectedTitle = title }
            return nil
        }
        // The page may have changed state while the probe ran.
        guard case .healthy = machine.phase else { return nil }
        pageDied(.blankPage(why))
        return why
    }

    private func pageDied(_ trigger: RecoveryTrigger) {
        diedHidden = !machine.isVisible
        logger.info("page died", metadata: ["trigger": "\(trigger)", "visible": "\(machine.isVisible)"])
        delegate?.pageDied(trigger)
        apply(machine.pageDied(trigger, at: .now))
    }

    // MARK: Actions

    private func apply(_ action: RecoveryMachine.Action) {
        guard !stopped else { return }
        switch action {
        case .none: break
        case .reload(let attempt, let delay):
            // Always a later turn: reloading from inside the engine's termination signal is asking for trouble.
            Task { [weak self] in
                if delay > .zero { try? await Task.sleep(for: delay) }
                self?.attempt(attempt)
            }
        case .giveUp(let attempts, let trigger):
            logger.warning("white-screen recovery gave up", metadata: ["attempts": "\(attempts)"])
            Counter(label: HybridMetrics.recoveries, dimensions: [("outcome", "gave_up"), ("trigger", trigger.name)])
                .increment()
            delegate?.pageRecoveryGaveUp(attempts: attempts, trigger: trigger)
        case .recovered(let attempt, let trigger):
            recoveries += 1
            Counter(label: HybridMetrics.recoveries, dimensions: [("outcome", "recovered"), ("trigger", trigger.name)])
                .increment()
            let report = RecoveryReport(
                reason: trigger.name, attempt: attempt, url: engine?.url?.absoluteString, deferred: diedHidden)
            diedHidden = false
            delegate?.pageRecovered(report)
        }
    }

    private func attempt(_ attempt: Int) {
        guard !stopped, let engine, machine.beginAttempt(attempt) else { return }
        reloads += 1
        let current = engine.url
        if let url = current, url.isFileURL {
            // A file page: `reload` fails after the process died, so it is loaded again with `loadFile`.
            let readAccess: URL =
                if case .file(_, let access) = location { access } else { url.deletingLastPathComponent() }
            engine.loadFile(url, allowingReadAccessTo: readAccess)
        } else if case .html(let html, let baseURL) = location,
            current == nil || current?.absoluteString == "about:blank" || current == baseURL
        {
            // Reloading would fetch the base URL, not the host's HTML.
            engine.loadHTML(html, baseURL: baseURL)
        } else if current != nil {
            engine.reload()
        } else if case .file(let url, let access) = location {
            engine.loadFile(url, allowingReadAccessTo: access)
        } else if case .request(let request) = location {
            do { try engine.load(request) } catch { apply(machine.loadFailed()) }
        } else {
            engine.reload()
        }
    }
}
