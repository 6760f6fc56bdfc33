#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import HybridKit

extension GTKWebView {
    /// Applies the settings that must be in place before the view exists (`WebViewSettings`).
    static func applyCreationSettings(_ values: WebViewSettings, to settings: UnsafeMutablePointer<WebKitSettings>) {
        if let value = values.mediaPlaybackRequiresUserGesture {
            webkit_settings_set_media_playback_requires_user_gesture(settings, value ? 1 : 0)
        }
        if let value = values.allowsInlineMediaPlayback {
            webkit_settings_set_media_playback_allows_inline(settings, value ? 1 : 0)
        }
        if let value = values.javaScriptCanOpenWindowsAutomatically {
            webkit_settings_set_javascript_can_open_windows_automatically(settings, value ? 1 : 0)
        }
        if let policy = values.userAgent {
            // A fresh settings object reports the engine's own user agent.
            let engineDefault = borrowGString(webkit_settings_get_user_agent(settings)) ?? ""
            webkit_settings_set_user_agent(settings, policy.resolve(engineDefault: engineDefault))
        }
    }
}
#endif
