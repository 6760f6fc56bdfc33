#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridKit
import Testing

@testable import HybridKitGTK

/// Settings that only work when given before the view exists reach the engine through the creation path.
@Suite(.serialized) struct CreationSettingsGTKTests {
    @Test @GTKActor func mediaAndWindowSettingsAreAppliedAtCreation() throws {
        try GTKRuntime.shared.start(.headless)
        let view = GTKWebView(
            configuration: GTKWebView.Configuration(
                settings: WebViewSettings(
                    mediaPlaybackRequiresUserGesture: false, allowsInlineMediaPlayback: true,
                    javaScriptCanOpenWindowsAutomatically: true)))
        defer { view.close() }
        let settings = webkit_web_view_get_settings(view.webView)
        #expect(webkit_settings_get_media_playback_requires_user_gesture(settings) == 0)
        #expect(webkit_settings_get_media_playback_allows_inline(settings) != 0)
        #expect(webkit_settings_get_javascript_can_open_windows_automatically(settings) != 0)

        // Unset fields keep the adapter's defaults: gestures required, no script-opened windows.
        let plain = GTKWebView()
        defer { plain.close() }
        let defaults = webkit_web_view_get_settings(plain.webView)
        #expect(webkit_settings_get_media_playback_requires_user_gesture(defaults) != 0)
        #expect(webkit_settings_get_javascript_can_open_windows_automatically(defaults) == 0)
    }

    @Test @GTKActor func scriptOpenedWindowsReachThePolicyOnlyWithTheWindowSetting() async throws {
        // Opened by the page's own script while it loads: no user gesture (scripts the host evaluates count as
        // one in WebKit, so they would pass the popup blocker either way).
        let page = "<title>popup</title><script>window.gotNull = window.open('/elsewhere.html') === null;</script>"
        let newContainer = NavigationPolicyConfiguration(newWindow: NavigationPolicyConfiguration.always(.newContainer))

        let blocked = try await PolicyTestRig(configuration: newContainer)
        defer { blocked.close() }
        try await blocked.show(page)
        #expect(try await blocked.evaluate("window.gotNull") == "true")

        let allowed = try await PolicyTestRig(
            configuration: newContainer, settings: WebViewSettings(javaScriptCanOpenWindowsAutomatically: true))
        defer { allowed.close() }
        try await allowed.show(page)
        #expect(try await allowed.evaluate("window.gotNull") == "true")
        try await waitUntil(timeout: .seconds(10)) { allowed.host.newContainers.count == 1 }
        #expect(allowed.host.newContainers.first?.isUserGesture == false)
        // The engine's popup blocker ended the other one in the web process: nothing reached the UI side.
        #expect(blocked.host.newContainers.isEmpty)
        #expect(blocked.view.title == "popup")
    }
}
#endif
