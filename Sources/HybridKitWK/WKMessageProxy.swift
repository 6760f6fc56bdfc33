#if canImport(WebKit) || os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit
#if os(Linux)
import WebKitStandIn
#else
import WebKit
#endif

/// Receives script messages for one handler name. WKUserContentController retains it; it holds the core's
/// handler, which itself holds its bridge weakly, so no cycle keeps a page alive.
@MainActor
final class MessageProxy: NSObject, WKScriptMessageHandler, WKScriptMessageHandlerWithReply {
    let handler: any ScriptMessageHandler

    init(handler: any ScriptMessageHandler) { self.handler = handler }

    func userContentController(_ controller: WKUserContentController, didReceive message: WKScriptMessage) {
        handler.didReceive(
            ScriptMessage(name: message.name, body: Self.body(message.body), frame: Self.frame(message)), reply: nil
        )
    }

    func userContentController(
        _ controller: WKUserContentController, didReceive message: WKScriptMessage,
        replyHandler: @escaping @MainActor @Sendable (Any?, String?) -> Void
    ) {
        handler.didReceive(
            ScriptMessage(name: message.name, body: Self.body(message.body), frame: Self.frame(message)),
            reply: WKMessageReply(replyHandler))
    }

    /// WebKit names the sending frame itself; its security origin is what the bridge checks.
    private static func frame(_ message: WKScriptMessage) -> FrameInfo {
        let origin = message.frameInfo.securityOrigin
        return FrameInfo(
            url: message.frameInfo.request.url,
            securityOrigin: serializedOrigin(protocol: origin.protocol, host: origin.host, port: origin.port),
            isMainFrame: message.frameInfo.isMainFrame)
    }

    /// `self.origin` as the page spells it. An opaque origin (sandboxed iframe, `data:` frame) has an empty
    /// `protocol` in WebKit: it is `null`, never built into a URL (an empty `URLComponents.scheme` traps).
    nonisolated static func serializedOrigin(protocol scheme: String, host: String, port: Int) -> String {
        guard !scheme.isEmpty else { return "null" }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return port == 0 ? "\(scheme)://\(bracketed)" : "\(scheme)://\(bracketed):\(port)"
    }

    private static func body(_ body: Any) -> ScriptMessage.Body {
        if let text = body as? String { return .string(text) }
        return .other(json: JSONText.encode(body))
    }
}

/// Settles one page promise. WebKit's reply handler is main-actor only and takes `Any?`, which is not
/// Sendable: the JSON text crosses to the main actor and is parsed there. Settles once; a reply dropped
/// unanswered rejects, because WebKit raises when a reply handler is never called.
@MainActor
final class WKMessageReply: ScriptMessageReply {
    private var replyHandler: (@MainActor @Sendable (Any?, String?) -> Void)?

    init(_ replyHandler: @escaping @MainActor @Sendable (Any?, String?) -> Void) {
        self.replyHandler = replyHandler
    }

    func resolve(json: String) { settle(json: json, error: nil) }

    func reject(message: String) { settle(json: nil, error: message) }

    private func settle(json: String?, error: String?) {
        guard let handler = replyHandler else { return }
        replyHandler = nil
        let value = json.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed)
        }
        handler(value, error)
    }

    // Not `isolated deinit` (it needs a newer runtime than the package's iOS 18 / macOS 15): the handler is
    // Sendable and main-actor isolated, so it is called there.
    deinit {
        guard let handler = replyHandler else { return }
        Task { @MainActor in handler(nil, "the native handler dropped the message without answering") }
    }
}
#endif
