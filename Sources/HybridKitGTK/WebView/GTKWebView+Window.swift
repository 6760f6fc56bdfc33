#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK

typealias WindowCloseCallback = @GTKActor () -> Void

extension GTKWebView {
    /// The title of the view's window (the page's title is not shown there by itself).
    public var windowTitle: String? {
        get { isClosed ? nil : borrowGString(gtk_window_get_title(hk_window(window))) }
        set { if !isClosed { gtk_window_set_title(hk_window(window), newValue ?? "") } }
    }

    /// Calls `handler` when the user closes the window, instead of GTK destroying it under the view: the host
    /// decides what closing means (``close()``, quitting). Without a handler GTK destroys the window.
    public func onWindowClose(_ handler: @escaping @GTKActor () -> Void) {
        guard !isClosed else { return }
        let deleteEvent: @convention(c) (gpointer?, gpointer?, gpointer?) -> gboolean = { _, _, data in
            guard let handle = SignalBox<WindowCloseCallback>.from(data) else { return 0 }
            GTKActor.assumeIsolated { handle() }
            return 1  // Handled: the window stays until the host closes the view.
        }
        // Released by GLib when the window is destroyed (at close), with the closure.
        connectSignal(
            UnsafeMutableRawPointer(window), "delete-event", handler: unsafeBitCast(deleteEvent, to: GCallback.self),
            as: WindowCloseCallback.self, callback: handler)
    }
}

extension GTKWebView {
    /// Whether the Web Inspector can be opened on this view (WebKit's `enable-developer-extras`, set with
    /// ``Configuration/developerExtras``): read back from the engine, not from the configuration.
    public var isInspectable: Bool {
        !isClosed && webkit_settings_get_enable_developer_extras(webkit_web_view_get_settings(webView)) != 0
    }
}
#endif
