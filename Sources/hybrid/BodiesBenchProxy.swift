import HybridCore
import HybridTour

/// The native networking `hybrid bench bodies` measures full proxy with.
enum BodiesBenchProxy {
    static let name = "URLSession stand-in"
    static func make() -> any RequestProxying { URLSessionTestProxy() }
}
