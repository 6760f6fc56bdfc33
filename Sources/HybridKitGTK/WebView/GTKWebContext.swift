#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridKit
import Logging

/// The WebKitWebContext shared by the web views of this process, and the dispatch of custom-scheme
/// requests to the web view that made them.
///
/// WebKitGTK registers schemes per context, while the port (like WKWebView) sets handlers per view; the
/// context therefore registers each scheme once and routes requests by `webkit_uri_scheme_request_get_web_view`.
@GTKActor
final class GTKWebContext {
    static let shared = GTKWebContext()

    let context: UnsafeMutablePointer<WebKitWebContext>
    private var registeredSchemes: Set<String> = []
    private var views: [UnsafeMutableRawPointer: WeakWebView] = [:]

    private struct WeakWebView { weak var view: GTKWebView? }

    /// Whether the web processes load the frame-stamping extension (see ``FrameStampingExtension``).
    let stampsFrames: Bool
    /// Prefixes the prompts the extension makes for synchronous bridge calls (see ``GTKSyncPrompt``). Only the
    /// web processes know it, through their initialization data; page scripts never see it.
    let syncPromptSecret: String

    private init() {
        // Ephemeral: the native side owns persistent state (cookie jar, packages); the engine's own disk
        // caches would only drift from it.
        context = webkit_web_context_new_ephemeral()
        webkit_web_context_set_cache_model(context, WEBKIT_CACHE_MODEL_WEB_BROWSER)
        // Before any web process starts: the extension must be in every one of them.
        var generator = SystemRandomNumberGenerator()
        syncPromptSecret = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
            .joined()
        if let directory = FrameStampingExtension.prepareDirectory(logger: Logger(label: "hybrid.gtk")) {
            webkit_web_context_set_web_extensions_directory(context, directory)
            webkit_web_context_set_web_extensions_initialization_user_data(
                context, g_variant_new_string(syncPromptSecret))
            stampsFrames = true
        } else {
            stampsFrames = false
        }
    }

    func attach(_ view: GTKWebView, engineView: UnsafeMutablePointer<WebKitWebView>) {
        views[UnsafeMutableRawPointer(engineView)] = WeakWebView(view: view)
    }

    func detach(engineView: UnsafeMutableRawPointer) {
        views[engineView] = nil
    }

    var attachedViewCount: Int { views.values.filter { $0.view != nil }.count }

    /// Registers `scheme` with the context (once) as secure and CORS-enabled, so pages it serves are secure
    /// contexts and can fetch across origins under CORS like https pages.
    func registerScheme(_ scheme: String) throws(EngineError) {
        let scheme = scheme.lowercased()
        guard !["http", "https", "file", "about", "data", "blob", "javascript"].contains(scheme) else {
            throw .schemeNotAllowed(scheme)
        }
        guard !registeredSchemes.contains(scheme) else { return }
        registeredSchemes.insert(scheme)
        webkit_web_context_register_uri_scheme(
            context, scheme,
            { request, _ in
                guard let request else { return }
                GTKActor.assumeIsolated { GTKWebContext.shared.route(request) }
            }, nil, nil)
        let security = webkit_web_context_get_security_manager(context)
        webkit_security_manager_register_uri_scheme_as_secure(security, scheme)
        webkit_security_manager_register_uri_scheme_as_cors_enabled(security, scheme)
    }

    /// Whether this context serves `url`'s scheme through a handler (``registerScheme(_:)``).
    func serves(_ url: URL) -> Bool { url.scheme.map { registeredSchemes.contains($0.lowercased()) } ?? false }

    private func route(_ request: UnsafeMutablePointer<WebKitURISchemeRequest>) {
        let engineView = webkit_uri_scheme_request_get_web_view(request).map { UnsafeMutableRawPointer($0) }
        guard let engineView, let view = views[engineView]?.view else {
            let error = g_error_new_literal(g_io_error_quark(), gint(G_IO_ERROR_NOT_FOUND.rawValue), "no handler")
            webkit_uri_scheme_request_finish_error(request, error)
            g_error_free(error)
            return
        }
        view.handleSchemeRequest(request)
    }
}
#endif
