#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit

@MainActor public final class WKUserContentController: NSObject {
    enum Entry {
        case plain(any WKScriptMessageHandler)
        case withReply(any WKScriptMessageHandlerWithReply)
    }

    public private(set) var userScripts: [WKUserScript] = []
    // WebKit retains its handlers (the well-known retain cycle of WKUserContentController).
    private var handlers: [String: Entry] = [:]
    private var views: [WeakView] = []

    public override init() {}

    public func addUserScript(_ userScript: WKUserScript) {
        requireMainThread("-[WKUserContentController addUserScript:]")
        userScripts.append(userScript)
        let script = Self.portScript(userScript)
        forEachBacking { $0.perform { engine in engine.addUserScript(script) } }
    }

    public func removeAllUserScripts() {
        requireMainThread("-[WKUserContentController removeAllUserScripts]")
        userScripts.removeAll()
        forEachBacking { $0.perform { engine in engine.removeAllUserScripts() } }
    }

    public func add(_ scriptMessageHandler: any WKScriptMessageHandler, name: String) {
        insert(.plain(scriptMessageHandler), name: name)
    }

    @available(iOS 14.0, macOS 11.0, *)
    public func add(
        _ scriptMessageHandler: any WKScriptMessageHandler, contentWorld: WKContentWorld, name: String
    ) {
        insert(.plain(scriptMessageHandler), name: name)
    }

    @available(iOS 14.0, macOS 11.0, *)
    public func addScriptMessageHandler(
        _ scriptMessageHandlerWithReply: any WKScriptMessageHandlerWithReply, contentWorld: WKContentWorld,
        name: String
    ) {
        insert(.withReply(scriptMessageHandlerWithReply), name: name)
    }

    public func removeScriptMessageHandler(forName name: String) {
        requireMainThread("-[WKUserContentController removeScriptMessageHandlerForName:]")
        guard handlers.removeValue(forKey: name) != nil else { return }
        forEachBacking { $0.perform { engine in engine.removeScriptMessageHandler(name: name) } }
    }

    @available(iOS 14.0, macOS 11.0, *)
    public func removeScriptMessageHandler(forName name: String, contentWorld: WKContentWorld) {
        removeScriptMessageHandler(forName: name)
    }

    @available(iOS 14.0, macOS 11.0, *)
    public func removeAllScriptMessageHandlers() {
        for name in handlers.keys { removeScriptMessageHandler(forName: name) }
    }

    private func insert(_ entry: Entry, name: String) {
        requireMainThread("-[WKUserContentController addScriptMessageHandler:name:]")
        // WebKit: NSInvalidArgumentException.
        if handlers[name] != nil {
            raiseWebKitException(
                "Attempt to add script message handler with name '\(name)' when one already exists.")
        }
        handlers[name] = entry
        let replies = if case .withReply = entry { true } else { false }
        forEachBacking { backing in
            let relay = backing.messageRelay
            backing.perform { engine in engine.addScriptMessageHandler(relay, name: name, replies: replies) }
        }
    }

    // MARK: Stand-in plumbing

    func attach(_ view: WKWebView) {
        views.removeAll { $0.view == nil }
        views.append(WeakView(view: view))
        guard let backing = view.backing else { return }
        let scripts = userScripts.map(Self.portScript)
        let registrations = handlers.map { name, entry in
            (name, { if case .withReply = entry { true } else { false } }())
        }
        let relay = backing.messageRelay
        backing.perform { engine in
            for script in scripts { engine.addUserScript(script) }
            for (name, replies) in registrations {
                engine.addScriptMessageHandler(relay, name: name, replies: replies)
            }
        }
    }

    func deliver(_ message: ScriptMessage, reply: (any ScriptMessageReply)?, to view: WKWebView) {
        guard let entry = handlers[message.name] else { return }
        let body: Any =
            switch message.body {
            case .string(let text): text
            case .other(let json): StandInJSON.object(json) ?? NSNull()
            }
        let frame = message.frame
        let frameURL = frame?.url ?? URL(string: "about:blank")
        let frameInfo = WKFrameInfo(
            isMainFrame: frame?.isMainFrame ?? true,
            request: frameURL.map { URLRequest(url: $0) } ?? URLRequest(url: URL(fileURLWithPath: "/")),
            securityOrigin: WKSecurityOrigin(serialized: frame?.securityOrigin ?? "null"), webView: view)
        let wkMessage = WKScriptMessage(body: body, webView: view, frameInfo: frameInfo, name: message.name)
        switch entry {
        case .plain(let handler):
            handler.userContentController(self, didReceive: wkMessage)
        case .withReply(let handler):
            let check = CompletionCheck(
                "-[WKScriptMessageHandlerWithReply userContentController:didReceiveScriptMessage:replyHandler:]")
            let lane = view.backing?.lane
            handler.userContentController(self, didReceive: wkMessage) { value, error in
                check.called()
                let json = StandInJSON.text(value)
                guard let reply, let lane else { return }
                if let error {
                    lane.post { reply.reject(message: error) }
                } else {
                    lane.post { reply.resolve(json: json ?? "null") }
                }
            }
        }
    }

    private func forEachBacking(_ body: (StandInBacking) -> Void) {
        views.removeAll { $0.view == nil }
        for entry in views { if let backing = entry.view?.backing { body(backing) } }
    }

    private static func portScript(_ script: WKUserScript) -> UserScript {
        UserScript(
            source: script.source,
            injectionTime: script.injectionTime == .atDocumentStart ? .documentStart : .documentEnd,
            allFrames: !script.isForMainFrameOnly)
    }
}

struct WeakView {
    weak var view: WKWebView?
}

@MainActor public final class WKWebViewConfiguration: NSObject {
    public var userContentController = WKUserContentController()
    public var websiteDataStore: WKWebsiteDataStore = .default()
    public var preferences = WKPreferences()
    public var mediaTypesRequiringUserActionForPlayback: WKAudiovisualMediaTypes = .all
    @available(macOS, unavailable)
    public var allowsInlineMediaPlayback = false
    public var applicationNameForUserAgent: String?
    private(set) var schemeHandlers: [String: any WKURLSchemeHandler] = [:]

    public override init() {}

    /// WebKit raises for a scheme it handles itself, a scheme that already has a handler, or a malformed
    /// scheme name (NSInvalidArgumentException); the stand-in ends the process the same way.
    @available(iOS 11.0, macOS 10.13, *)
    public func setURLSchemeHandler(_ urlSchemeHandler: (any WKURLSchemeHandler)?, forURLScheme urlScheme: String) {
        requireMainThread("-[WKWebViewConfiguration setURLSchemeHandler:forURLScheme:]")
        let scheme = urlScheme.lowercased()
        if WKWebView.handlesURLScheme(scheme) {
            raiseWebKitException("'\(urlScheme)' is a URL scheme that WKWebView handles natively")
        }
        guard Self.isValidScheme(scheme) else { raiseWebKitException("'\(urlScheme)' is not a valid URL scheme") }
        if schemeHandlers[scheme] != nil {
            raiseWebKitException("URL scheme '\(urlScheme)' already has a registered URL scheme handler")
        }
        schemeHandlers[scheme] = urlSchemeHandler
    }

    @available(iOS 11.0, macOS 10.13, *)
    public func urlSchemeHandler(forURLScheme urlScheme: String) -> (any WKURLSchemeHandler)? {
        schemeHandlers[urlScheme.lowercased()]
    }

    /// WKWebView copies its configuration; controllers and data stores are shared, not copied.
    func copyForView() -> WKWebViewConfiguration {
        let copy = WKWebViewConfiguration()
        copy.userContentController = userContentController
        copy.websiteDataStore = websiteDataStore
        copy.preferences.javaScriptCanOpenWindowsAutomatically = preferences.javaScriptCanOpenWindowsAutomatically
        copy.mediaTypesRequiringUserActionForPlayback = mediaTypesRequiringUserActionForPlayback
        copy.allowsInlineMediaPlayback = allowsInlineMediaPlayback
        copy.applicationNameForUserAgent = applicationNameForUserAgent
        copy.schemeHandlers = schemeHandlers
        return copy
    }

    /// What the engine behind the stand-in is asked for.
    var portSettings: WebViewSettings {
        WebViewSettings(
            mediaPlaybackRequiresUserGesture: !mediaTypesRequiringUserActionForPlayback.isEmpty,
            allowsInlineMediaPlayback: allowsInlineMediaPlayback,
            javaScriptCanOpenWindowsAutomatically: preferences.javaScriptCanOpenWindowsAutomatically,
            userAgent: applicationNameForUserAgent.map { .appending($0) })
    }

    private static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first) else {
            return false
        }
        return scheme.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0))
        }
    }
}
#endif
