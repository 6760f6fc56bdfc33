import Foundation
import HybridKit

/// Where the page of a `hybrid run` comes from, prepared before any engine starts (so a wrong argument is
/// reported at once): a development package over a directory, a verified package installed in a scratch store,
/// or a URL.
struct RunSource {
    let startURL: URL
    /// The app's origin as the engine reports it, which the bridge modules are open to.
    let origin: String
    let target: String
    /// What serves the page's custom scheme, with its network for misses; nil for a URL.
    let serving: PackageServing?
    let network: URLSessionNetworkFetcher?
    /// Set when the target is a directory: re-read when its files change.
    let package: DevelopmentPackage?
    /// The scratch store of a .zip, removed at the end.
    let temporary: URL?

    static func prepare(_ target: RunTarget, options: RunOptions) throws(RunError) -> RunSource {
        switch target {
        case .web(let url):
            return RunSource(
                startURL: url, origin: origin(of: url), target: url.absoluteString, serving: nil, network: nil,
                package: nil, temporary: nil)
        case .directory(let directory):
            let route = try route(options.serves)
            let package: DevelopmentPackage
            do {
                package = try DevelopmentPackage(directory: directory, serves: [options.serves], entry: options.entry)
            } catch { throw .packageRefused(path: directory.path, reason: "\(error)") }
            Terminal.line(
                "UNSIGNED DEVELOPMENT PACKAGE  \(package.directory.path) served as \(options.serves) — not signed, "
                    + "never installable, not for release")
            for note in package.skipped { Terminal.line("skipped \(Terminal.safe(note))") }
            return try served(
                package, route: route, entry: options.entry, options: options, target: directory.path,
                temporary: nil)
        case .package(let zip):
            guard let keyPath = options.publicKey else { throw .zipNeedsKey(zip.path) }
            let key: PackageVerificationKey
            do { key = try PackageVerificationKey.load(from: URL(fileURLWithPath: keyPath)) } catch {
                throw .badKey(path: keyPath, reason: "\(error)")
            }
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-run-\(UUID().uuidString)")
            let installed: InstalledPackage
            let store: PackageStore
            do {
                store = try PackageStore(root: root, trustedKey: key)
                // `hybrid run` is no particular app: any container version the package asks for is accepted.
                installed = try PackageInstaller(
                    store: store, trustedKey: key, containerVersion: SemanticVersion(major: 1 << 30, minor: 0, patch: 0)
                ).install(packageAt: zip)
            } catch {
                try? FileManager.default.removeItem(at: root)
                throw .packageRefused(path: zip.path, reason: "\(error)")
            }
            Terminal.line(
                "package \(installed.id) \(installed.version), signed with key \(key.keyID), verified; serves "
                    + installed.manifest.serves.joined(separator: " "))
            do throws(RunError) {
                return try served(
                    store, route: try route(installed.manifest.serves[0]), entry: installed.manifest.entry,
                    options: options, target: zip.path, temporary: root)
            } catch {
                try? FileManager.default.removeItem(at: root)
                throw error
            }
        }
    }

    /// Package serving of `store` under `route`, its misses fetched through the shared jar (and sent to
    /// `--origin` when given).
    private static func served(
        _ store: any PackageSnapshotSource, route: OfflineRoute, entry: String, options: RunOptions, target: String,
        temporary: URL?
    ) throws(RunError) -> RunSource {
        let mapping = OfflineURLMapping(route: route)
        guard let prefix = route.prefixes.first, let prefixURL = URL(string: prefix.description),
            let entryURL = URL(string: entry, relativeTo: prefixURL)?.absoluteURL,
            let startURL = mapping.customURL(for: entryURL)
        else { throw .badPrefix("no URL for \(entry) under \(options.serves)") }
        var development: DevelopmentOrigin?
        if let origin = options.origin {
            guard let server = URL(string: origin), let sent = try? DevelopmentOrigin(sending: prefixURL, to: server)
            else {
                throw .badOrigin(origin)
            }
            development = sent
            Terminal.line("origin  misses of \(sent.origin) go to \(sent.server)")
        }
        // The jar `document.cookie` uses too: the page and its network misses see the same cookies.
        let cookies = JarCookieHandler(jar: DocumentCookieDefault.sharedJar) { mapping.packageURL(for: $0) }
        let network = URLSessionNetworkFetcher(cookies: cookies, sendingTo: development)
        return RunSource(
            startURL: startURL, origin: origin(of: startURL), target: target,
            serving: PackageServing(store: store, route: route, network: ErrorStatusLog(inner: network)),
            network: network,
            package: store as? DevelopmentPackage, temporary: temporary)
    }

    /// Ends the network session and removes the scratch store.
    func discard() {
        network?.shutDown()
        if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }

    private static func route(_ prefix: String) throws(RunError) -> OfflineRoute {
        do { return try OfflineRoute(prefixes: [prefix]) } catch { throw .badPrefix("\(error)") }
    }

    /// `scheme://host[:port]`, as engines write a security origin.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let host = url.host?.lowercased() ?? ""
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
