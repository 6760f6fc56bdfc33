#if canImport(WebKit)
    import Foundation
    import HybridKit
    import WebKit

    // Written against the iOS 18 / macOS 15 SDKs but, like the rest of this target, never compiled here (no Apple
    // toolchain on the build machine). The async forms of the WKUIDelegate and WKDownloadDelegate methods are
    // used so no completion-handler signature can silently fail to match an optional requirement.

    extension WKEngine: UIDelegateHosting {
        public nonisolated var uiDelegate: (any EngineUIDelegate)? {
            get { MainActor.assumeIsolated { uiDelegateStorage } }
            set {
                MainActor.assumeIsolated {
                    uiDelegateStorage = newValue
                    webView.uiDelegate = self
                }
            }
        }
    }

    extension WKEngine: WKUIDelegate {
        /// `window.open` (and `target=_blank` actions the navigation delegate allowed): the navigation delegate
        /// hears the request; no WKWebView is created, so the page gets `null` at once.
        public func webView(
            _ webView: WKWebView, createWebViewWith configuration: WKWebViewConfiguration,
            for navigationAction: WKNavigationAction, windowFeatures: WKWindowFeatures
        ) -> WKWebView? {
            let action = NavigationAction(
                request: EngineRequest(url: navigationAction.request.url ?? URL(fileURLWithPath: "/")),
                kind: .other, isMainFrame: true, opensNewWindow: true)
            _ = navigationDelegate?.decidePolicy(for: action)
            return nil
        }

        public func webView(
            _ webView: WKWebView, runJavaScriptAlertPanelWithMessage message: String,
            initiatedByFrame frame: WKFrameInfo
        ) async {
            _ = await runDialog(ScriptDialog(kind: .alert, message: message, pageURL: webView.url))
        }

        public func webView(
            _ webView: WKWebView, runJavaScriptConfirmPanelWithMessage message: String,
            initiatedByFrame frame: WKFrameInfo
        ) async -> Bool {
            let answer = await runDialog(ScriptDialog(kind: .confirm, message: message, pageURL: webView.url))
            if case .confirmed(let value) = answer { return value }
            return false
        }

        public func webView(
            _ webView: WKWebView, runJavaScriptTextInputPanelWithPrompt prompt: String, defaultText: String?,
            initiatedByFrame frame: WKFrameInfo
        ) async -> String? {
            let dialog = ScriptDialog(
                kind: .prompt(defaultText: defaultText ?? ""), message: prompt, pageURL: webView.url)
            if case .text(let text) = await runDialog(dialog) { return text }
            return nil
        }

        private func runDialog(_ dialog: ScriptDialog) async -> ScriptDialogAnswer {
            guard let delegate = uiDelegateStorage else { return ScriptDialogDefaults().answer(for: dialog) }
            return await withCheckedContinuation { continuation in
                delegate.runScriptDialog(dialog, reply: WKScriptDialogReply { continuation.resume(returning: $0) })
            }
        }
    }

    /// Resumes the WebKit dialog call once; later answers are ignored (``ScriptDialogReply``'s contract).
    final class WKScriptDialogReply: ScriptDialogReply, @unchecked Sendable {
        // Touched on the main actor only (the port's executor on Apple platforms).
        private var resume: ((ScriptDialogAnswer) -> Void)?

        init(_ resume: @escaping (ScriptDialogAnswer) -> Void) { self.resume = resume }

        func answer(_ answer: ScriptDialogAnswer) {
            MainActor.assumeIsolated {
                let resume = self.resume
                self.resume = nil
                resume?(answer)
            }
        }
    }

    extension WKEngine: WKDownloadDelegate {
        /// Reports the download and declines a destination, which cancels it: the engine saves nothing itself.
        public func download(
            _ download: WKDownload, decideDestinationUsing response: URLResponse, suggestedFilename: String
        ) async -> URL? {
            if let url = response.url ?? download.originalRequest?.url {
                uiDelegateStorage?.didRecognizeDownload(
                    EngineDownload(
                        url: url, suggestedFilename: suggestedFilename.isEmpty ? nil : suggestedFilename,
                        mimeType: response.mimeType))
            }
            return nil
        }
    }

    extension WKEngine: WebsiteDataClearing {
        public nonisolated func clearWebsiteData(_ types: WebsiteDataTypes, modifiedSince: Date?)
            async throws(EngineError)
        {
            await removeData(types, since: modifiedSince ?? .distantPast)
        }

        private func removeData(_ types: WebsiteDataTypes, since date: Date) async {
            var names: Set<String> = []
            let pairs: [(WebsiteDataTypes, String)] = [
                (.memoryCache, WKWebsiteDataTypeMemoryCache), (.diskCache, WKWebsiteDataTypeDiskCache),
                (.diskCache, WKWebsiteDataTypeFetchCache), (.sessionStorage, WKWebsiteDataTypeSessionStorage),
                (.localStorage, WKWebsiteDataTypeLocalStorage), (.indexedDB, WKWebsiteDataTypeIndexedDBDatabases),
                (.cookies, WKWebsiteDataTypeCookies),
                (.serviceWorkers, WKWebsiteDataTypeServiceWorkerRegistrations),
            ]
            for (type, name) in pairs where types.contains(type) { names.insert(name) }
            guard !names.isEmpty else { return }
            await webView.configuration.websiteDataStore.removeData(ofTypes: names, modifiedSince: date)
        }
    }
#endif
