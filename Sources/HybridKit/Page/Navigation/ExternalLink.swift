import Foundation

/// A URL the web view must not load itself: the host hands it to the system (dialer, mail, app store, another app).
public struct ExternalLink: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case phone, sms, mail, appStore
        /// Android `intent:` URLs.
        case intent
        /// An http(s) URL the policy sends out of the app (``NewWindowChoice/external``).
        case web
        /// Any other non-web scheme (`weixin:`, `alipays:` …).
        case other
    }

    public var url: URL
    public var kind: Kind
    /// Whether the user tapped something: hosts may refuse to dial or switch apps without one.
    public var isUserGesture: Bool

    public init(url: URL, kind: Kind, isUserGesture: Bool) {
        self.url = url
        self.kind = kind
        self.isUserGesture = isUserGesture
    }
}
