import Foundation
import HybridCookies
import Synchronization

/// Something a page can have on top of the bridge: offline packages, request-body hooks, `document.cookie`,
/// remote configuration, a native proxy…
///
/// The container wires every feature in passes, each pass over all features in the order they are listed, on
/// the engine's executor:
/// 1. ``share(into:)``: publish in ``PageAssembly/services`` what other features configure or use;
/// 2. ``configure(_:)``: configure what others shared, before anything is built from it (a remote configuration
///    sets the hook switches the request hooks are then baked with);
/// 3. ``contribute(to:)``: scripts at document start, bridge modules, scheme handlers or wrappers around them;
/// 4. ``attach(to:services:)``: once the page is wired, before the first load; the session it returns lives as
///    long as the page.
/// So a feature never depends on where it is listed, and the container knows no feature by type.
public protocol PageFeature: Sendable {
    func share(into assembly: inout PageAssembly) throws
    func configure(_ assembly: inout PageAssembly) throws
    func contribute(to assembly: inout PageAssembly) throws
    /// Called once the page is wired and before the first load, with what the features shared. The session is
    /// closed with the container. No default, so that a feature written against another signature does not
    /// compile rather than silently never attach; return nil when there is nothing to keep.
    func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)?
}

extension PageFeature {
    public func share(into assembly: inout PageAssembly) throws {}
    public func configure(_ assembly: inout PageAssembly) throws {}
    public func contribute(to assembly: inout PageAssembly) throws {}
}

/// A feature's state for one page. Closed when the container closes, before the view is closed or pooled.
public protocol PageFeatureSession: AnyObject {
    func close()
    /// The engine starts loading `url` in the main frame (before it requests the document).
    func mainFrameWillLoad(_ url: URL)
    /// The main frame committed a new document for `url` (after the bridge dropped the old document's calls).
    func mainFrameDidCommit(_ url: URL)
    /// The page died (its web process ended) or was found blank; recovery, when on, reloads it next.
    func pageFailed(_ trigger: RecoveryTrigger)
}

extension PageFeatureSession {
    public func mainFrameWillLoad(_ url: URL) {}
    public func mainFrameDidCommit(_ url: URL) {}
    public func pageFailed(_ trigger: RecoveryTrigger) {}
}

/// What HybridKit's own features share with each other while a page is wired (see ``PageFeature``).
public struct PageServices: Sendable {
    /// Custom schemes the page's features serve (lowercased). A feature that serves one declares it here in
    /// ``PageFeature/share(into:)``, so the container gives that scheme request-body hooks and `document.cookie`
    /// by default (see ``ContainerConfiguration/requestInterception``).
    public var servedSchemes: Set<String> = []
    /// The hook switches and the scheme the request hooks serve (``RequestInterceptionFeature``).
    public internal(set) var requestSwitches: InterceptionSwitches?
    public internal(set) var requestScheme: String?
    /// The scheme of the `document.cookie` shim (``DocumentCookieFeature``) and the jar behind it, which the
    /// package network fallback reads and stores cookies in unless its host gave it a network of its own.
    public internal(set) var documentCookieScheme: String?
    public internal(set) var documentCookieJar: CookieJar?
    /// The route packages are served on (``PackageServing``), and its handler once contributed.
    public internal(set) var packageRoute: OfflineRoute?
    public var packageScheme: String? { packageRoute?.scheme }
    public internal(set) var packageHandler: PackageSchemeHandler?
    /// The network session the package handler owns, when the host gave it none: shut down with the page.
    var ownedPackageNetwork: URLSessionNetworkFetcher?
    /// The page's boot trial (``BootSafety``), made when its bridge module is contributed.
    var bootTrial: BootTrialSession?
    /// The remote configuration version applied to the page (``RemoteConfigApplication``).
    var remoteConfigStatus: RemoteConfigStatus?

    public init() {}
}

/// The remote configuration version a page runs with, written by its applier, read by its container.
final class RemoteConfigStatus: Sendable {
    private let version = Mutex<UInt64?>(nil)
    var appliedVersion: UInt64? {
        get { version.withLock { $0 } }
        set { version.withLock { $0 = newValue } }
    }
}

/// What a page is made of, before it is wired to an engine.
public struct PageAssembly: Sendable {
    public var modules: [BridgeModule]
    /// Injected after the bridge runtime, in this order.
    public var userScripts: [UserScript]
    /// Custom schemes the page serves, by scheme (lowercase).
    public var schemeHandlers: [String: any SchemeHandler]
    /// Applied to every scheme handler once all features contributed, in the order added: lets a feature
    /// (say, body hooks) sit in front of whatever serves a scheme.
    public var schemeHandlerWrappers: [@Sendable (String, any SchemeHandler) -> any SchemeHandler]
    /// The engine the page is being wired to, for what must run on its executor (``EngineExecutorHop/hop(onExecutorOf:)``).
    /// Handlers the engine keeps must not hold it strongly: that would be a cycle.
    public let engine: (any WebEngine)?
    /// What the features shared in the first pass (see ``PageFeature``).
    public var services = PageServices()

    public init(
        modules: [BridgeModule] = [], userScripts: [UserScript] = [], schemeHandlers: [String: any SchemeHandler] = [:],
        engine: (any WebEngine)? = nil
    ) {
        self.engine = engine
        self.modules = modules
        self.userScripts = userScripts
        self.schemeHandlers = schemeHandlers
        self.schemeHandlerWrappers = []
    }

    /// The handlers with every wrapper applied.
    func wrappedSchemeHandlers() -> [String: any SchemeHandler] {
        var result: [String: any SchemeHandler] = [:]
        for (scheme, handler) in schemeHandlers {
            result[scheme.lowercased()] = schemeHandlerWrappers.reduce(handler) { $1(scheme, $0) }
        }
        return result
    }
}

/// Why a feature could not be wired.
public enum PageFeatureError: Error, CustomStringConvertible {
    /// The assembly names no engine: the feature was used outside a container.
    case noEngine(String)

    public var description: String {
        switch self {
        case .noEngine(let feature):
            "\(feature) needs the engine being wired (PageAssembly.engine); the container provides it"
        }
    }
}
