import Foundation
import Logging

/// One page: an engine with a bridge attached, and the navigation events the bridge must hear.
///
/// The host creates it on the engine's actor, registers modules, and loads. It is the engine's
/// navigation delegate and passes every event on to ``delegate``; it is also the engine's UI delegate, answers
/// the prompts that carry synchronous bridge calls itself, and passes every other dialog on to ``uiDelegate``.
public final class HybridPage: NavigationDelegate, EngineUIDelegate {
    public let engine: any WebEngine
    public let bridge: BridgeEngine
    public weak var delegate: (any NavigationDelegate)?
    /// Hears the dialogs (except synchronous bridge calls), downloads and failed sub-resources of the page.
    /// Set this rather than the engine's `uiDelegate`, which would take synchronous calls away from the bridge.
    public weak var uiDelegate: (any EngineUIDelegate)?

    public init(
        engine: any WebEngine, modules: [BridgeModule] = [], configuration: BridgeConfiguration = BridgeConfiguration()
    )
        throws
    {
        self.engine = engine
        bridge = try BridgeEngine(engine: engine, modules: ModuleRegistry(modules), configuration: configuration)
        engine.navigationDelegate = self
        engine.uiDelegate = self
    }

    /// Closes the bridge (pending calls fail with `closed`) and detaches from the engine.
    public func close() {
        bridge.close()
        if engine.navigationDelegate === self { engine.navigationDelegate = nil }
        if engine.uiDelegate === self { engine.uiDelegate = nil }
    }

    // MARK: UI

    public func runScriptDialog(_ dialog: ScriptDialog, reply: any ScriptDialogReply) {
        // Before the host: the host must never see (or answer) a bridge call, and a page's own prompt must
        // never reach the bridge (it lacks the runtime's key; see BridgeEngine.answerSynchronousCall).
        if bridge.answerSynchronousCall(dialog, reply: reply) { return }
        if let uiDelegate {
            uiDelegate.runScriptDialog(dialog, reply: reply)
        } else {
            reply.answer(ScriptDialogDefaults().answer(for: dialog))
        }
    }

    public func didRecognizeDownload(_ download: EngineDownload) {
        guard let uiDelegate else {
            // The engine saves nothing itself: unheard, the page's download is lost, so say where to hear it.
            return logger.warning(
                "the page's download was dropped: nothing hears downloads; set HybridPage.uiDelegate (in a container: ContainerConfiguration.navigationPolicy, then navigationPolicyHost)",
                metadata: ["url": "\(download.url.absoluteString)", "filename": "\(download.suggestedFilename ?? "-")"])
        }
        uiDelegate.didRecognizeDownload(download)
    }
    public func didFailSubresourceLoad(_ failure: SubresourceLoadFailure) {
        guard let uiDelegate else {
            // Logged here when nothing else hears it (the navigation policy logs it when it is there).
            if !failure.isCancellation { NavigationPolicyController.log(failure, to: logger) }
            return
        }
        uiDelegate.didFailSubresourceLoad(failure)
    }
    public func pageDidRequestClose() { uiDelegate?.pageDidRequestClose() }

    public func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy {
        // The classic WebViewJavascriptBridge bootstrap loads this URL in a hidden iframe to wake the
        // native side; here the bridge is always there, so the load is dropped instead of hitting the network.
        if action.request.url.host?.lowercased() == "__bridge_loaded__" { return .cancel }
        if warmingUp { return .allow }
        return delegate?.decidePolicy(for: action) ?? .allow
    }

    public func decidePolicy(for response: NavigationResponse) -> NavigationResponsePolicy {
        if warmingUp { return .allow }
        return delegate?.decidePolicy(for: response) ?? (response.canShowMIMEType ? .allow : .download)
    }

    public func didStartNavigation(to url: URL?) {
        if warmingUp { return }
        if blankMayStillEnd { pageStartedPastBlank = true }
        // WebKitGTK names no URL for the page's load when it dropped a blank start page whose process was not up
        // yet: the view's URL is the page's by then.
        delegate?.didStartNavigation(to: url ?? (blankMayStillEnd ? engine.url : nil))
    }

    public func didCommitNavigation(to url: URL?) {
        bridge.pageDidNavigate()
        if warmingUp || isBlanks(url) { return }
        blankMayStillEnd = false
        delegate?.didCommitNavigation(to: url)
    }

    public func didFinishNavigation(to url: URL?) {
        if warmingUp { return endWarmUp() }
        // Before the page's commit, a finish is the blank document's, whether the page's load started or not: a
        // page finishes only once committed.
        if blankMayStillEnd {
            blankMayStillEnd = false
            return
        }
        delegate?.didFinishNavigation(to: url)
    }

    public func didFailNavigation(to url: URL?, error: String) {
        if warmingUp { return endWarmUp() }
        // The page's own failure is never hidden.
        let blank = isBlanks(url)
        blankMayStillEnd = false
        if blank { return }
        logFailedLoad(url, error)
        delegate?.didFailNavigation(to: url, error: error)
    }

    // MARK: Starting the web process early

    /// Set from ``startWebProcessQuietly()`` until the blank document it loads finished or failed (or
    /// ``endWarmUp()``); nil when no blank document is loading. That document is not the host's page: its events
    /// reach no delegate, and the page's load waits for it to end (``whenWarmUpEnds(_:)``), so no event of one is
    /// ever taken for the other's (WebKitGTK names an event by the view's URI at the time, which a later load
    /// changes).
    private var warmUpWaiters: [@Sendable () -> Void]?
    /// Set by ``stopWaitingForWarmUp()``: the blank document had not ended when the page's load went ahead, so a
    /// commit, finish or failure before that load's start is the blank document's, named with the page's URL (the
    /// view's URI by then), and must not reach ``delegate`` (a host waiting for its page would take the blank
    /// document's end for it).
    private var blankMayStillEnd = false {
        didSet { if !blankMayStillEnd { pageStartedPastBlank = false } }
    }
    /// The page's load started while ``blankMayStillEnd``: a commit or failure is the page's unless it names
    /// `about:blank` (``isBlanks(_:)``); a finish before the page's commit is still the blank document's (WebKitGTK
    /// may end the blank document after the page's provisional load started, and names that end with the page's
    /// URL).
    private var pageStartedPastBlank = false

    /// Whether a commit or failure named `url` is the blank document's, once the page's load went ahead of it: any
    /// before the page's load started, and one naming `about:blank` after (WebKitGTK may report the blank
    /// document's start only once its process is up, named with the page's URL, then commit and finish it before
    /// the page's load starts).
    private func isBlanks(_ url: URL?) -> Bool {
        blankMayStillEnd && (!pageStartedPastBlank || url?.absoluteString == "about:blank")
    }

    var warmingUp: Bool { warmUpWaiters != nil }

    /// Starts the engine's web process ahead of the view's first load (``WebEngine/startWebProcess()``), the
    /// blank document it takes hidden from ``delegate``; false when the engine did nothing.
    func startWebProcessQuietly() -> Bool {
        guard engine.startWebProcess() else { return false }
        warmUpWaiters = []
        return true
    }

    /// Calls `body` once the blank document is in (or failed), or at once when none is loading.
    func whenWarmUpEnds(_ body: @escaping @Sendable () -> Void) {
        if warmUpWaiters == nil { return body() }
        warmUpWaiters?.append(body)
    }

    /// The blank document ended, or the host loads something else: from now on every event passes.
    func endWarmUp() {
        let waiters = warmUpWaiters ?? []
        warmUpWaiters = nil
        for waiter in waiters { waiter() }
    }

    /// The page's load stops waiting for a blank document that is still loading (it took too long): as
    /// ``endWarmUp()``, but that document's own end, if it still comes before the page's load starts, stays hidden.
    func stopWaitingForWarmUp() {
        guard warmingUp else { return }
        blankMayStillEnd = true
        endWarmUp()
    }

    /// One per page (not per type): a logger takes its handler when it is made, and the host may set up logging
    /// after HybridKit was first used.
    private let logger = Logger(label: "hybrid.page")

    /// A failed load is never silent: the page may show nothing at all. A load the host or the page replaced
    /// (cancelled, or turned into a download) is routine and logged at debug only.
    private func logFailedLoad(_ url: URL?, _ error: String) {
        let failure = PageLoadFailure(url: url, engineMessage: error)
        let metadata: Logger.Metadata = ["url": "\(url?.absoluteString ?? "?")", "error": "\(error)"]
        if failure.kind == .cancelled { return logger.debug("page load stopped", metadata: metadata) }
        logger.warning("page load \(failure.kind.rawValue): \(failure.advice)", metadata: metadata)
    }

    public func webProcessDidTerminate(reason: WebProcessTerminationReason) {
        bridge.pageDidNavigate()
        endWarmUp()
        delegate?.webProcessDidTerminate(reason: reason)
    }
}
