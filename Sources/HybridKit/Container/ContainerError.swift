/// Why a container could not be made.
public enum ContainerError: Error, CustomStringConvertible {
    /// The engine refused something (a scheme, a view).
    case engine(EngineError)
    /// The bridge could not be attached (its runtime resources are missing, …).
    case bridge(any Error)
    /// A page feature failed to build or attach.
    case feature(String, any Error)
    /// The features cannot be put in an order (see ``PageFeature``).
    case features(PageFeatureError)
    /// The engine cannot say which frame sends a message, and the configuration does not allow that.
    case framesUnverified
    /// A module (or the page messages) has ``BridgeAccess/site`` access, and the configuration names no site.
    case siteAccessWithoutSite(String)
    /// The engine given to ``HybridContainer/init(configuration:engine:)`` belongs to another container.
    case engineInUse

    /// What to do when ``framesUnverified`` is thrown, for logs and for this error's description.
    public static let framesUnverifiedAdvice =
        "the engine cannot tell which frame sends a message, so the bridge could not check origins. On "
        + "WebKitGTK, HybridKit's web-process extension (libHybridWebExtension.so) was not loaded: every build of "
        + "HybridKitGTK puts it in the …_HybridKitGTK.resources directory beside the executable; ship that "
        + "directory with the app, or set HYBRID_WEB_EXTENSION to the library's path. To run anyway, with "
        + "origin-limited modules and document.cookie refusing every call, set "
        + "ContainerConfiguration.allowsUnverifiedFrames"

    public var description: String {
        switch self {
        case .engine(let error): "the engine refused the page: \(error)"
        case .bridge(let error): "the bridge could not be attached: \(error)"
        case .feature(let name, let error): "the page feature \(name) failed: \(error)"
        case .features(let error): "the page features cannot be wired: \(error)"
        case .framesUnverified: Self.framesUnverifiedAdvice
        case .engineInUse:
            "this web view belongs to another container (until that one closes); make a new one for each container"
        case .siteAccessWithoutSite(let module):
            "'\(module)' is open to the site's pages (access: .site), but the container has no site: set "
                + "ContainerConfiguration.site to a HybridSite, or name the origins the module is for"
        }
    }
}
