import Foundation
import Logging
import Metrics

/// Applies a ``NavigationPolicyConfiguration`` to one web view: non-web schemes go to the host and are not
/// loaded, new-window requests go where the configuration says, dialogs go to the host with a timeout and
/// defaults, downloads are recognised, failed sub-resources are logged and reported.
///
/// Install it on the engine's actor as the navigation delegate (or ``HybridPage/delegate``) and, where the
/// engine has one, as the UI delegate (``install(on:)``). Events it does not decide pass on to ``next``.
public final class NavigationPolicyController: NavigationDelegate, EngineUIDelegate {
    public let configuration: NavigationPolicyConfiguration
    public weak var host: (any NavigationPolicyHost)?
    /// Receives what the policy does not decide (load events, and actions the policy lets through).
    public weak var next: (any NavigationDelegate)?
    private weak var engine: (any WebEngine)?
    private let hop: EngineExecutorHop
    private let logger = Logger(label: "hybrid.navigation")

    private static func count(_ outcome: String) {
        Counter(label: HybridMetrics.navigationPolicy, dimensions: [("outcome", outcome)]).increment()
    }

    public init(
        engine: any WebEngine, configuration: NavigationPolicyConfiguration = NavigationPolicyConfiguration(),
        host: (any NavigationPolicyHost)? = nil
    ) {
        self.engine = engine
        self.configuration = configuration
        self.host = host
        hop = EngineExecutorHop()
    }

    /// Makes this controller the engine's UI delegate (dialogs, downloads, failed sub-resources).
    public func install(on engine: any WebEngine) {
        engine.uiDelegate = self
    }

    // MARK: Navigation actions

    public func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy {
        let url = action.request.url
        let isMainFrame = action.isMainFrameKnown || action.opensNewWindow ? action.isMainFrame : nil
        switch configuration.schemes.disposition(of: url, isMainFrame: isMainFrame) {
        case .external(let kind):
            logger.debug("handing out external link", metadata: ["url": "\(url.absoluteString)", "kind": "\(kind)"])
            Self.count("external")
            host?.openExternally(ExternalLink(url: url, kind: kind, isUserGesture: action.isUserGesture))
            return .cancel
        case .blocked(let reason):
            logger.notice("navigation blocked", metadata: ["url": "\(url.absoluteString)", "reason": "\(reason)"])
            Self.count("blocked")
            host?.didBlockNavigation(to: url, reason: reason)
            return .cancel
        case .load:
            if action.opensNewWindow {
                openNewWindow(action)
                return .cancel
            }
            return next?.decidePolicy(for: action) ?? .allow
        }
    }

    private func openNewWindow(_ action: NavigationAction) {
        let request = NewWindowRequest(
            url: action.request.url, isUserGesture: action.isUserGesture, openerURL: engine?.url)
        let choice = configuration.newWindow(request)
        Self.count("new_window")
        logger.debug("new window", metadata: ["url": "\(request.url.absoluteString)", "choice": "\(choice)"])
        switch choice {
        case .sameView:
            // `window.open()` with no URL opens about:blank for the opener to write into: nothing to load here.
            guard request.url.scheme?.lowercased() != "about" else { return }
            // Loading it here would send a GET: a form posted to a new window would lose its method and body.
            guard action.request.method.uppercased() == "GET" else {
                let reason = "a \(action.request.method) to a new window cannot be re-sent in the same view"
                logger.notice(
                    "new window refused", metadata: ["url": "\(request.url.absoluteString)", "reason": "\(reason)"])
                Self.count("blocked")
                host?.didBlockNavigation(to: request.url, reason: reason)
                return
            }
            // Later, not inside the engine's decision callback: starting a load from there re-enters the engine.
            let engine = self.engine
            let logger = self.logger
            Task { [hop] in
                hop.run {
                    do {
                        try engine?.load(EngineRequest(url: request.url))
                    } catch {
                        logger.warning(
                            "could not load new-window URL in the same view",
                            metadata: ["url": "\(request.url.absoluteString)", "error": "\(error)"])
                    }
                }
            }
        case .newContainer: host?.openInNewContainer(request)
        case .external:
            host?.openExternally(ExternalLink(url: request.url, kind: .web, isUserGesture: request.isUserGesture))
        case .ignore: break
        }
    }

    // MARK: Responses

    public func decidePolicy(for response: NavigationResponse) -> NavigationResponsePolicy {
        // The engine turns it into a download and reports it through `didRecognizeDownload`: a download is
        // never shown as a page, not even an HTML attachment the engine could show.
        if DownloadDetector.download(for: response) != nil { return .download }
        return next?.decidePolicy(for: response) ?? .allow
    }

    // MARK: Load events (passed on)

    public func didStartNavigation(to url: URL?) {
        // Main frame only: the place to stop what the action decision could not attribute to a frame.
        if let url, let scheme = url.scheme?.lowercased(), configuration.schemes.subframeOnlySchemes.contains(scheme) {
            let reason = "\(scheme): URLs may only load in subframes"
            logger.notice(
                "navigation stopped", metadata: ["url": "\(url.absoluteString.prefix(200))", "reason": "\(reason)"])
            engine?.stopLoading()
            Self.count("blocked")
            host?.didBlockNavigation(to: url, reason: reason)
            return
        }
        next?.didStartNavigation(to: url)
    }
    public func didCommitNavigation(to url: URL?) { next?.didCommitNavigation(to: url) }
    public func didFinishNavigation(to url: URL?) { next?.didFinishNavigation(to: url) }
    public func didFailNavigation(to url: URL?, error: String) { next?.didFailNavigation(to: url, error: error) }
    public func webProcessDidTerminate(reason: WebProcessTerminationReason) {
        next?.webProcessDidTerminate(reason: reason)
    }

    // MARK: UI

    public func runScriptDialog(_ dialog: ScriptDialog, reply: any ScriptDialogReply) {
        let fallback = configuration.dialogDefaults.answer(for: dialog)
        Self.count("dialog")
        guard let host else {
            reply.answer(fallback)
            return
        }
        let timeout = configuration.dialogTimeout
        let logger = self.logger
        // Two racers, one answer: the reply ignores whichever comes second.
        let timer = Task { [hop] in
            do { try await Task.sleep(for: timeout) } catch { return }
            logger.notice("script dialog timed out; answering with the default", metadata: ["timeout": "\(timeout)"])
            NavigationPolicyController.count("dialog_timeout")
            hop.run { reply.answer(fallback) }
        }
        Task { [hop] in
            let answer = await host.runScriptDialog(dialog)
            timer.cancel()
            hop.run { reply.answer(Self.fitting(answer, to: dialog) ?? fallback) }
        }
    }

    /// The host's answer when it suits the dialog's kind, so a confused host cannot make `confirm` return text.
    /// The warning a failed sub-resource gets, here or, without a policy, from ``HybridPage``.
    static func log(_ failure: SubresourceLoadFailure, to logger: Logger) {
        logger.warning(
            "sub-resource failed to load",
            metadata: ["url": "\(failure.url?.absoluteString ?? "-")", "error": "\(failure.error)"])
    }

    static func fitting(_ answer: ScriptDialogAnswer?, to dialog: ScriptDialog) -> ScriptDialogAnswer? {
        switch (dialog.kind, answer) {
        case (.alert, .dismissed?), (.confirm, .confirmed?), (.beforeUnload, .confirmed?), (.prompt, .text?):
            answer
        default: nil
        }
    }

    public func pageDidRequestClose() { host?.pageDidRequestClose() }

    public func didRecognizeDownload(_ download: EngineDownload) {
        logger.info(
            "download recognised",
            metadata: [
                "url": "\(download.url.absoluteString)", "filename": "\(download.suggestedFilename ?? "-")",
                "mime": "\(download.mimeType ?? "-")",
            ])
        Self.count("download")
        host?.didRecognizeDownload(download)
    }

    public func didFailSubresourceLoad(_ failure: SubresourceLoadFailure) {
        if failure.isCancellation && !configuration.reportsCancelledLoads { return }
        Self.log(failure, to: logger)
        Self.count("subresource_failed")
        host?.didFailSubresourceLoad(failure)
    }
}
