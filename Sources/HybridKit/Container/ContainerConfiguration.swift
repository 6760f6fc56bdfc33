import Foundation
import HybridCookies

/// Everything a page needs, given once when its container is created.
public struct ContainerConfiguration: Sendable {
    /// The site the page belongs to, declared once (see ``HybridSite``): its package is served under its scheme
    /// (unless a listed feature serves packages), its address loads from the package, and ``BridgeAccess/site``
    /// names its pages. Nil: no site; modules with `.site` access make the container fail.
    public var site: HybridSite?
    public var modules: [BridgeModule]
    public var bridge: BridgeConfiguration
    /// The page's own scripts, injected after the bridge runtime.
    public var userScripts: [UserScript]
    /// Handlers of the host's, for this page only (held weakly by the engine, strongly by the container).
    public var messageHandlers: [HostMessageHandler]
    /// What the page has on top of the bridge: offline packages (``PackageServing``), request-body hooks
    /// (``RequestInterceptionFeature``), `document.cookie` (``DocumentCookieFeature``), remote configuration
    /// (``RemoteConfigApplication``), or the host's own ``PageFeature``s.
    public var features: [any PageFeature]
    /// Request-body hooks for the custom scheme the page is served from (see ``FeatureDefault``): WebKit loses
    /// the bodies of requests to custom schemes, and WebKitGTK crashes reading a Blob-backed one.
    public var requestInterception: FeatureDefault
    /// `document.cookie` for the custom scheme the page is served from, backed by a cookie jar (WebKit keeps no
    /// cookies for custom-scheme documents, so it would read "" and drop writes).
    public var documentCookies: DocumentCookieDefault
    /// Whether the container may run on an engine that cannot say which frame sent a message (WebKitGTK without
    /// HybridKit's web-process extension). False (the default): creating the container fails with
    /// ``ContainerError/framesUnverified``, which says how to ship the extension. True: it runs, and bridge
    /// modules limited to origins or to the main frame refuse every call, as does `document.cookie`.
    public var allowsUnverifiedFrames: Bool
    /// White-screen recovery; nil turns it off.
    public var recovery: RecoveryPolicy?
    public var userAgent: String?
    /// Non-web schemes, new windows, dialogs, downloads and failed sub-resources (see
    /// ``NavigationPolicyController``); the container's ``HybridContainer/navigationPolicyHost`` hears them.
    /// The schemes the container serves (packages, features) are added to its loadable schemes. Nil: no policy
    /// (the engine's defaults; the host's ``HybridContainer/navigationDelegate`` decides alone).
    public var navigationPolicy: NavigationPolicyConfiguration?
    /// Whether the page starts on screen (see ``HybridContainer/setVisible(_:)``).
    public var isVisible: Bool
    /// The pages that may post messages with `hybrid.post(name, value)`, which the host awaits with
    /// ``HybridContainer/messages(_:)``: checked by security origin and frame, as a module's access is (`.site`:
    /// the site's pages). Nil (the default): no page may post, and ``HybridContainer/messages(_:)`` throws.
    public var pageMessages: BridgeAccess?
    /// The app's HTTP cache for what a site's package lacks (images, API GETs fetched natively), shared by every
    /// container given the same instance. Nil: responses fetched natively are not cached.
    public var httpCache: HTTPResponseCache?

    public init(
        site: HybridSite? = nil, modules: [BridgeModule] = [], bridge: BridgeConfiguration = BridgeConfiguration(),
        userScripts: [UserScript] = [], messageHandlers: [HostMessageHandler] = [],
        features: [any PageFeature] = [], requestInterception: FeatureDefault = .automatic,
        documentCookies: DocumentCookieDefault = .automatic(jar: DocumentCookieDefault.sharedJar),
        allowsUnverifiedFrames: Bool = false, recovery: RecoveryPolicy? = RecoveryPolicy(), userAgent: String? = nil,
        navigationPolicy: NavigationPolicyConfiguration? = nil, isVisible: Bool = true,
        pageMessages: BridgeAccess? = nil
    ) {
        self.site = site
        self.modules = modules
        self.bridge = bridge
        self.userScripts = userScripts
        self.messageHandlers = messageHandlers
        self.features = features
        self.requestInterception = requestInterception
        self.documentCookies = documentCookies
        self.allowsUnverifiedFrames = allowsUnverifiedFrames
        self.recovery = recovery
        self.userAgent = userAgent
        self.navigationPolicy = navigationPolicy
        self.isVisible = isVisible
        self.pageMessages = pageMessages
    }
}

/// Whether the container adds a feature the page needs when the host did not list one.
public enum FeatureDefault: Sendable, Equatable {
    /// Added, with default settings, for the custom scheme the page is served from (the packages' scheme, else
    /// the first one a feature declares in ``PageServices/servedSchemes``) when no such feature is listed.
    case automatic
    /// Not added. Without request hooks no request body is read on the page's custom schemes: requests that
    /// carry one fail with an error the page sees, and a log line says why (reading a Blob-backed body crashes
    /// WebKitGTK 2.50, and a page must behave the same on every engine).
    case off
}

/// Whether the container gives custom-scheme pages a jar-backed `document.cookie` when the host listed no
/// ``DocumentCookieFeature``.
public enum DocumentCookieDefault: Sendable {
    /// Added for the custom scheme the page is served from, over `jar`.
    case automatic(jar: CookieJar)
    /// Not added: `document.cookie` reads "" on custom-scheme pages.
    case off

    /// The jar of pages whose host gave none: in memory, shared by every container of the process, so pages
    /// see each other's cookies as they would in a browser. Hosts that keep cookies across launches or sync
    /// them with their own networking pass their own jar.
    public static let sharedJar = CookieJar()
}
