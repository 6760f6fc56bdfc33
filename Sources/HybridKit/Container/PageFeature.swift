import Foundation

/// Something a page can have on top of the bridge: offline packages, request-body hooks, `document.cookie`,
/// remote configuration, a native proxy, or a feature of the host's own.
///
/// Features compose like middleware. Each declares the ``PageServices`` it ``provides`` and the ones it
/// ``needs``; the container builds every provider of a service before any feature that needs it, so the order
/// features are listed in never decides what one sees (features unrelated by a service build in listing order).
/// A feature built into HybridKit has no standing a host's cannot have: its services are declared with the same
/// ``PageServiceKey`` a host uses for its own, and read the same way.
///
/// Wiring, on the engine's actor:
/// 1. ``build(_:)``, in the derived order: read what needed services hold, contribute scripts at document start,
///    bridge modules, scheme handlers or wrappers around them, and write the services provided;
/// 2. ``attach(to:services:)``, once the page is wired and before the first load, with every service built; the
///    session it returns lives as long as the page.
///
/// Mistakes are errors when the container is made, naming the features: a service written without being
/// declared in ``provides``, one provided twice (unless its key ``PageServiceKey/allowsSeveralProviders``), and
/// features that need each other (a cycle).
public protocol PageFeature: Sendable {
    /// The services this feature writes in ``build(_:)``.
    var provides: [PageServiceID] { get }
    /// The services this feature reads in ``build(_:)``: their providers build first. A service no listed
    /// feature provides reads as nil; a feature that cannot do without it throws from ``build(_:)``.
    var needs: [PageServiceID] { get }
    @EngineActor func build(_ assembly: inout PageAssembly) throws
    /// Called once the page is wired and before the first load, with what the features built. The session is
    /// closed with the container. No default, so that a feature written against another signature does not
    /// compile rather than silently never attach; return nil when there is nothing to keep.
    @EngineActor func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)?
}

extension PageFeature {
    public var provides: [PageServiceID] { [] }
    public var needs: [PageServiceID] { [] }
    @EngineActor public func build(_ assembly: inout PageAssembly) throws {}
}

/// A feature's state for one page. Closed when the container closes, before the view is closed or pooled.
@EngineActor
public protocol PageFeatureSession: AnyObject, Sendable {
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

/// Why a feature could not be wired.
public enum PageFeatureError: Error, CustomStringConvertible, Equatable {
    /// The assembly names no engine: the feature was used outside a container.
    case noEngine(String)
    /// `feature` wrote `service` in its build without declaring it in ``PageFeature/provides``.
    case undeclaredService(feature: String, service: String)
    /// Several features provide `service`, whose key allows one provider.
    case providedTwice(service: String, features: [String])
    /// These features need each other's services, so none can be built first.
    case cycle(features: [String])

    public var description: String {
        switch self {
        case .noEngine(let feature):
            "\(feature) needs the engine being wired (PageAssembly.engine); the container provides it"
        case .undeclaredService(let feature, let service):
            "\(feature) wrote the page service \(service) without declaring it: add it to the feature's `provides`"
        case .providedTwice(let service, let features):
            "the page service \(service) is provided by \(features.joined(separator: " and ")); list one of them"
        case .cycle(let features):
            "the page features \(features.joined(separator: ", ")) need each other's services, so none can be "
                + "built first: remove a need from one of them"
        }
    }
}
