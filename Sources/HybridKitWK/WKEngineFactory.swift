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

/// Which website data store a factory's engines use: cookies, caches and storage, and what
/// `clearWebsiteData` clears. Every engine of one factory (a container's page, its pool and its recovery)
/// uses the same store.
public enum WKEngineDataStore: Sendable, Hashable {
    /// WebKit's default store, shared with every other default-store web view of the app: clearing its data
    /// clears theirs, and their cookie changes reach this container's jar too.
    case `default`
    /// A store of this factory's own that keeps nothing on disk (`WKWebsiteDataStore.nonPersistent()`), made
    /// when the factory makes its first engine and kept for the engines it makes after.
    case nonPersistent
    /// The persistent store with this identifier (`WKWebsiteDataStore(forIdentifier:)`, iOS 17 / macOS 14,
    /// below the package's minimum): a profile of its own that outlives the app's run.
    case identified(UUID)
}

/// Makes WKWebView engines for containers, pools and recovery; every engine runs on the main actor.
///
/// WKWebView takes its scheme handlers, settings and data store only when it is created, so the factory carries
/// them: ``schemes`` are registered on every new view (the container routes them with `setSchemeHandler`
/// later), ``settings`` are applied to its configuration and ``dataStore`` chooses its website data store.
/// A container's choice of store is the factory it is given.
///
/// A pooled engine waits unseen until a page takes it. WebKit throttles a page whose view is in no window
/// (timers, animation frames; on iOS it may suspend the page) and cannot snapshot a view of zero size, so
/// every view is made at ``viewFrame`` and handed to ``parkView``, where the host puts it into its window,
/// behind its own content and not hidden (`isHidden` counts as unseen). Showing the view later moves it
/// (`addSubview` takes it from where it was parked).
public struct WKEngineFactory: WebEngineFactory {
    /// Custom schemes every engine can serve (the container's package and feature schemes, and the bridge's scheme
    /// for binary values, `BridgeConfiguration.defaultBytesScheme`, which a bridge on a view without it leaves off).
    public var schemes: Set<String>
    public var settings: WebViewSettings
    /// A fresh configuration per view (WKWebView copies it; sharing one would share its scheme handlers).
    public var makeConfiguration: @MainActor @Sendable () -> WKWebViewConfiguration
    /// The website data store of every engine; nil keeps the one ``makeConfiguration`` gives (WebKit's
    /// default store unless it sets another).
    public var dataStore: WKEngineDataStore?
    /// The frame every view is made with, until the host lays it out.
    public var viewFrame: CGRect
    /// Puts each new view where WebKit keeps its page running (a window); nil leaves it outside any window.
    public var parkView: (@MainActor @Sendable (WKWebView) -> Void)?
    private let stores = DataStoreSlot()

    public init(
        schemes: Set<String> = ["app", BridgeConfiguration.defaultBytesScheme],
        settings: WebViewSettings = WebViewSettings(),
        dataStore: WKEngineDataStore? = nil, viewFrame: CGRect = WKEngine.defaultViewFrame,
        parkView: (@MainActor @Sendable (WKWebView) -> Void)? = nil,
        makeConfiguration: @escaping @MainActor @Sendable () -> WKWebViewConfiguration = {
            WKWebViewConfiguration()
        }
    ) {
        self.schemes = schemes
        self.settings = settings
        self.dataStore = dataStore
        self.viewFrame = viewFrame
        self.parkView = parkView
        self.makeConfiguration = makeConfiguration
    }

    @MainActor
    public func makeEngine() throws(EngineError) -> any WebEngine { try makeWKEngine() }

    /// A new engine with its type: give it to `HybridContainer(configuration:engine:)` and show its
    /// `webView` (a `WKWebView`) yourself, with no downcast of `HybridContainer.engine`.
    @MainActor
    public func makeWKEngine() throws(EngineError) -> WKEngine {
        let configuration = makeConfiguration()
        if let dataStore { configuration.websiteDataStore = stores.store(for: dataStore) }
        let engine = try WKEngine(configuration: configuration, schemes: schemes, settings: settings, frame: viewFrame)
        if let parkView {
            parkView(engine.webView)
        } else {
            DataStoreSlot.noteUnparked()
        }
        return engine
    }
}

/// The stores a factory hands out: the non-persistent one is made once and shared by the factory's engines.
@MainActor
final class DataStoreSlot {
    private var nonPersistent: WKWebsiteDataStore?
    private static var warnedUnparked = false

    nonisolated init() {}

    func store(for choice: WKEngineDataStore) -> WKWebsiteDataStore {
        switch choice {
        case .default:
            return .default()
        case .nonPersistent:
            if let nonPersistent { return nonPersistent }
            let made = WKWebsiteDataStore.nonPersistent()
            nonPersistent = made
            return made
        case .identified(let id):
            return WKWebsiteDataStore(forIdentifier: id)
        }
    }

    /// Said once per process: every later engine is parked nowhere as well.
    static func noteUnparked() {
        guard !warnedUnparked else { return }
        warnedUnparked = true
        WKEngine.logger.notice(
            "WKEngineFactory made a view outside any window: WebKit may throttle a pooled page and fail its snapshots; give the factory a parkView that puts new views into the host's window"
        )
    }
}
#endif
