import Foundation
import HybridPackages

/// Boot safety for a container's package pages, as a ``PageFeature``: opens of a version on trial (see
/// `BootGuard`) are recorded before the page loads, and the page confirms with `hybridPackages.ready()` from a
/// main-frame document of the version on trial. A page that does not confirm within the policy's deadline (counted
/// from the first open, whatever it reloads or navigates), whose web process dies, or which recovery finds blank
/// counts as a failed open; at the policy's count the store rolls back, the version is marked bad and `BootGuard`'s
/// `onRollback` hears it. It watches the route of ``PackageServing``, which the container builds first.
public struct BootSafety: PageFeature {
    public let trials: BootGuard
    /// The package whose opens are watched: the one the route's pages come from.
    public let packageID: String

    public init(_ trials: BootGuard, packageID: String) {
        self.trials = trials
        self.packageID = packageID
    }

    public var needs: [PageServiceID] { [.packageRoute] }
    public var provides: [PageServiceID] { [.bootTrial] }

    public func build(_ assembly: inout PageAssembly) throws {
        guard let route = assembly.services.packageRoute else { throw BootSafetyError.noPackageRoute }
        let session = BootTrialSession(trials: trials, packageID: packageID, route: route)
        assembly.services[BootTrialKey.self] = session
        // Only the main frame of the package's own pages may confirm: a frame cannot vouch for the page.
        let origins = Set(
            route.prefixes.compactMap { prefix -> String? in
                guard let separator = prefix.origin.range(of: "://") else { return nil }
                return route.scheme + "://" + prefix.origin[separator.upperBound...]
            })
        assembly.modules.append(
            BridgeModule("packages", access: BridgeAccess(origins: .only(origins))) { module in
                module.method("ready") { (_: NoArguments, context) in
                    try session.confirm(from: context)
                    return NoArguments()
                }
            })
        assembly.userScripts.append(try Self.script())
    }

    public func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? {
        services[BootTrialKey.self]
    }

    static func script() throws(BootSafetyError) -> UserScript {
        guard
            let url = PackageResources.url(
                forResource: "packages", withExtension: "js", subdirectory: "PackagesRuntime"),
            let source = try? String(contentsOf: url, encoding: .utf8)
        else { throw .missingResource("PackagesRuntime/packages.js") }
        return UserScript(source: source, injectionTime: .documentStart, allFrames: false)
    }
}

/// Why ``BootSafety`` could not be wired.
public enum BootSafetyError: Error, CustomStringConvertible {
    /// No ``PackageServing`` in the container: there is nothing to watch.
    case noPackageRoute
    case missingResource(String)

    public var description: String {
        switch self {
        case .noPackageRoute: "BootSafety watches package pages: list a PackageServing feature in the same container"
        case .missingResource(let path): "HybridKit's resource \(path) is missing: \(PackageResources.shippingAdvice)"
        }
    }
}

/// The page's boot trial, made when its bridge module is built.
enum BootTrialKey: PageServiceKey { typealias Value = BootTrialSession }

extension PageServiceID {
    static let bootTrial = PageServiceID(BootTrialKey.self)
}
