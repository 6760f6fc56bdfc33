import Foundation

/// The host app's side of the navigation policy. Synchronous methods are called on the engine's actor;
/// every method has a default, so a host implements only what it handles.
@EngineActor
public protocol NavigationPolicyHost: AnyObject, Sendable {
    /// Open `link` with the system (dialer, mail, store, another app, the browser). The page is not navigated.
    func openExternally(_ link: ExternalLink)
    /// The policy chose ``NewWindowChoice/newContainer``: create another container for `request` if you want.
    func openInNewContainer(_ request: NewWindowRequest)
    /// Show `dialog` and return the answer; `nil` (or no answer before the timeout) gives the page the default.
    func runScriptDialog(_ dialog: ScriptDialog) async -> ScriptDialogAnswer?
    /// A response that is a download, not a page: fetch it natively if you want it.
    func didRecognizeDownload(_ download: EngineDownload)
    func didFailSubresourceLoad(_ failure: SubresourceLoadFailure)
    /// A URL the policy refused to load or hand out (`file:`, a top-level `data:` …).
    func didBlockNavigation(to url: URL, reason: String)
    /// The page called `window.close()` in its main frame: dismiss it if you want.
    func pageDidRequestClose()
}

extension NavigationPolicyHost {
    public func openExternally(_ link: ExternalLink) {}
    public func openInNewContainer(_ request: NewWindowRequest) {}
    public func runScriptDialog(_ dialog: ScriptDialog) async -> ScriptDialogAnswer? { nil }
    public func didRecognizeDownload(_ download: EngineDownload) {}
    public func didFailSubresourceLoad(_ failure: SubresourceLoadFailure) {}
    public func didBlockNavigation(to url: URL, reason: String) {}
    public func pageDidRequestClose() {}
}
