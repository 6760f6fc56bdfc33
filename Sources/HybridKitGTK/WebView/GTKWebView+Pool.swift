#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation

extension GTKWebView {
    /// The view's session state (its back/forward list) as WebKit serialises it; nil once closed.
    public func sessionStateData() -> Data? {
        guard !isClosed, let state = webkit_web_view_get_session_state(webView) else { return nil }
        defer { webkit_web_view_session_state_unref(state) }
        guard let bytes = webkit_web_view_session_state_serialize(state) else { return nil }
        defer { g_bytes_unref(bytes) }
        var size: gsize = 0
        guard let data = g_bytes_get_data(bytes, &size) else { return Data() }
        return Data(bytes: data, count: Int(size))
    }

    /// Replaces the back/forward list with one from ``sessionStateData()`` without navigating.
    /// False when the data is not a session state or the view is closed.
    public func restoreSessionState(_ data: Data) -> Bool {
        guard !isClosed else { return false }
        guard let bytes = data.withUnsafeBytes({ g_bytes_new($0.baseAddress, gsize($0.count)) }) else { return false }
        defer { g_bytes_unref(bytes) }
        guard let state = webkit_web_view_session_state_new(bytes) else { return false }
        defer { webkit_web_view_session_state_unref(state) }
        webkit_web_view_restore_session_state(webView, state)
        return true
    }

    /// Entries in the back/forward list, current one included.
    public var backForwardListLength: Int {
        guard !isClosed, let list = webkit_web_view_get_back_forward_list(webView) else { return 0 }
        return Int(webkit_back_forward_list_get_length(list))
    }
}

// The port's history requirements.
extension GTKWebView {
    public func historySnapshot() -> Data? { sessionStateData() }

    public func restoreHistory(_ snapshot: Data) -> Bool { restoreSessionState(snapshot) }

    public var historyLength: Int? { isClosed ? nil : backForwardListLength }
}
#endif
