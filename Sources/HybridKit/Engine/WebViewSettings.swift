/// Engine settings that only take effect when given before the view is created (WKWebViewConfiguration
/// is copied at creation). `nil` keeps the engine adapter's default.
public struct WebViewSettings: Sendable, Equatable {
    /// `false` lets media autoplay without a user gesture.
    public var mediaPlaybackRequiresUserGesture: Bool?
    /// `true` plays video inline rather than fullscreen.
    public var allowsInlineMediaPlayback: Bool?
    /// `true` lets `window.open` work without a user gesture (it then reaches the navigation policy).
    public var javaScriptCanOpenWindowsAutomatically: Bool?
    public var userAgent: UserAgentPolicy?

    public init(
        mediaPlaybackRequiresUserGesture: Bool? = nil, allowsInlineMediaPlayback: Bool? = nil,
        javaScriptCanOpenWindowsAutomatically: Bool? = nil, userAgent: UserAgentPolicy? = nil
    ) {
        self.mediaPlaybackRequiresUserGesture = mediaPlaybackRequiresUserGesture
        self.allowsInlineMediaPlayback = allowsInlineMediaPlayback
        self.javaScriptCanOpenWindowsAutomatically = javaScriptCanOpenWindowsAutomatically
        self.userAgent = userAgent
    }
}
