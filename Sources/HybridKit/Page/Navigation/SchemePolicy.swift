import Foundation

/// What to do with a URL a frame is about to navigate to.
public enum URLDisposition: Sendable, Equatable {
    /// The engine may load it.
    case load
    /// Not for the engine: the host opens it (dialer, mail, store, another app).
    case external(ExternalLink.Kind)
    /// Neither loaded nor handed out; the reason says why.
    case blocked(String)
}

/// Which schemes the engine may load, and which URLs belong to the system instead.
public struct SchemePolicy: Sendable, Equatable {
    /// Schemes the engine loads in any frame.
    public var loadableSchemes: Set<String>
    /// Loaded in subframes only: a page must not replace itself with a document it made up (`data:` phishing).
    /// Where the engine cannot say which frame navigates, these are allowed at decision time and a main-frame
    /// load is stopped when it starts (``NavigationPolicyController``).
    public var subframeOnlySchemes: Set<String>
    /// `about:` URLs that may load (`about:blank` and `about:srcdoc` are what frames start with).
    public var aboutURLs: Set<String>
    /// Never loaded and never handed out (local files, script URLs).
    public var blockedSchemes: Set<String>
    /// https hosts (and optional path prefix) that are app stores: opened by the system, not in the page.
    public var appStoreLinks: [(host: String, pathPrefix: String)]

    public static let phoneSchemes: Set<String> = ["tel", "telprompt"]
    public static let smsSchemes: Set<String> = ["sms", "smsto", "mms"]
    public static let mailSchemes: Set<String> = ["mailto"]
    public static let appStoreSchemes: Set<String> = ["itms-apps", "itms-appss", "itms", "itms-services", "market"]

    /// `appSchemes` are the app's own custom schemes (offline packages, demo pages).
    public init(
        appSchemes: Set<String> = [], loadableSchemes: Set<String> = ["http", "https", "blob"],
        subframeOnlySchemes: Set<String> = ["data"], aboutURLs: Set<String> = ["about:blank", "about:srcdoc"],
        blockedSchemes: Set<String> = ["file", "javascript", "vbscript"],
        appStoreLinks: [(host: String, pathPrefix: String)] = [
            ("apps.apple.com", "/"), ("itunes.apple.com", "/"), ("play.google.com", "/store"),
        ]
    ) {
        self.loadableSchemes = Set(loadableSchemes.union(appSchemes).map { $0.lowercased() })
        self.subframeOnlySchemes = Set(subframeOnlySchemes.map { $0.lowercased() })
        self.aboutURLs = aboutURLs
        self.blockedSchemes = Set(blockedSchemes.map { $0.lowercased() })
        self.appStoreLinks = appStoreLinks
    }

    /// `isMainFrame` is `nil` when the engine cannot tell.
    public func disposition(of url: URL, isMainFrame: Bool?) -> URLDisposition {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else { return .blocked("the URL has no scheme") }
        if scheme == "http" || scheme == "https", let host = url.host?.lowercased() {
            let path = url.path.isEmpty ? "/" : url.path
            if appStoreLinks.contains(where: { host == $0.host && path.hasPrefix($0.pathPrefix) }) {
                return .external(.appStore)
            }
        }
        if loadableSchemes.contains(scheme) { return .load }
        if scheme == "about" {
            let bare = url.absoluteString.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
            return aboutURLs.contains(bare.lowercased()) ? .load : .blocked("\(bare) is not an allowed about: URL")
        }
        if subframeOnlySchemes.contains(scheme) {
            return isMainFrame == true ? .blocked("\(scheme): URLs may only load in subframes") : .load
        }
        if blockedSchemes.contains(scheme) { return .blocked("\(scheme): URLs are not loaded") }
        if Self.phoneSchemes.contains(scheme) { return .external(.phone) }
        if Self.smsSchemes.contains(scheme) { return .external(.sms) }
        if Self.mailSchemes.contains(scheme) { return .external(.mail) }
        if Self.appStoreSchemes.contains(scheme) { return .external(.appStore) }
        if scheme == "intent" { return .external(.intent) }
        return .external(.other)
    }

    public static func == (lhs: SchemePolicy, rhs: SchemePolicy) -> Bool {
        lhs.loadableSchemes == rhs.loadableSchemes && lhs.subframeOnlySchemes == rhs.subframeOnlySchemes
            && lhs.aboutURLs == rhs.aboutURLs && lhs.blockedSchemes == rhs.blockedSchemes
            && lhs.appStoreLinks.map { "\($0.host)\u{0}\($0.pathPrefix)" }
                == rhs.appStoreLinks.map { "\($0.host)\u{0}\($0.pathPrefix)" }
    }
}
