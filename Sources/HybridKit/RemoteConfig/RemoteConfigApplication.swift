import Foundation
import Synchronization

/// A signed remote configuration (``RemoteConfigStore``) applied to a page, as a ``PageFeature``: now, and
/// whenever the store takes a newer one:
///
/// - `degradedPrefixes`: those URLs load from the network, never from packages, and pages under them are never
///   hooked (the package handler's degrade list and the request hooks' switches);
/// - `hooks`: `xhr`, `fetch`, `sendBeacon` and `form` switch each hooked API, `proxy` full proxy, `all` every
///   hook (see ``InterceptionSwitches``); names the configuration leaves out keep the app's setting;
/// - `bridgePermissions`: module → origins allowed to call it (``AccessOverride``, narrowing by default);
/// - `scripts`: replace the ``scripts`` registered here by name, for documents loaded after the change.
///
/// It configures the page's other features (the package handler's degrade list, the request hooks' switches)
/// through ``PageServices``: the hooks need the overrides it provides, so they are baked with them.
public struct RemoteConfigApplication: PageFeature {
    public var store: RemoteConfigStore
    /// Scripts a configuration may replace, injected in this order after the page's own scripts.
    public var scripts: [NamedUserScript]
    /// `.narrow` (default): the configuration can withdraw a module from origins, never open it to new ones.
    public var bridgePermissionMode: AccessOverride.Mode
    /// Content of replacement scripts that do not travel inline (from a package, say); checked against their
    /// SHA-256 before use. Nil: such replacements are refused and the registered script stays.
    public var scriptContent: (@Sendable (ReplacementScript) -> Data?)?

    public init(
        store: RemoteConfigStore, scripts: [NamedUserScript] = [], bridgePermissionMode: AccessOverride.Mode = .narrow,
        scriptContent: (@Sendable (ReplacementScript) -> Data?)? = nil
    ) {
        self.store = store
        self.scripts = scripts
        self.bridgePermissionMode = bridgePermissionMode
        self.scriptContent = scriptContent
    }

    public var provides: [PageServiceID] { [.hookOverrides, .remoteConfigStatus] }

    /// The hook switches of the configuration in use, for the hooks to be baked with, so the first document
    /// already follows them.
    public func build(_ assembly: inout PageAssembly) throws {
        assembly.services[RemoteConfigStatusKey.self] = RemoteConfigStatus()
        let store = store
        assembly.services[HookOverridesKey.self] = { scheme in
            store.current.map { RemoteConfigApplier.hookOverrides(of: $0, pageScheme: scheme) }
        }
    }

    /// The degrade list, named scripts and bridge permissions of the configuration in use, and from then on
    /// every configuration the store takes, until the page closes.
    public func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? {
        // start(modules:) applies the configuration in use whole (degrade list and switches included).
        let applier = RemoteConfigApplier(self, engine: page.engine, services: services)
        applier.start(modules: page.bridge.modules)
        return applier
    }
}

/// The remote configuration version a page runs with, written by its applier, read by its container.
final class RemoteConfigStatus: Sendable {
    private let version = Mutex<UInt64?>(nil)
    var appliedVersion: UInt64? {
        get { version.withLock { $0 } }
        set { version.withLock { $0 = newValue } }
    }
}

enum RemoteConfigStatusKey: PageServiceKey { typealias Value = RemoteConfigStatus }

extension PageServiceID {
    static let remoteConfigStatus = PageServiceID(RemoteConfigStatusKey.self)
}
