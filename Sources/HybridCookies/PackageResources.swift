import Foundation

/// Finds the resource bundles SwiftPM builds for this package's targets (shared with HybridKit through `package`
/// access), without SwiftPM's `Bundle.module`: its accessor stops the process when the bundle is missing, and an
/// app shipped without one must get a typed error at container creation instead (each caller turns a nil here
/// into its own `missingResource` error).
///
/// Where a bundle is looked for, in order: the app's resources and bundle (`HybridKit_HybridKit.bundle` in an app
/// Xcode built), the bundle of the framework HybridKit was linked into, and the directory of the running executable
/// (`HybridKit_HybridKit.resources` beside it on Linux, `….bundle` on macOS): what SwiftPM's accessor searches,
/// except the absolute path of the build folder, which no shipped app has.
package enum PackageResources {
    /// The bundle of `target` (`HybridKit`, `HybridCookies`), or nil when it is in none of those places.
    package static func bundle(of target: String) -> Bundle? {
        let suffixes = ["_\(target).bundle", "_\(target).resources"]
        for directory in searchedDirectories() {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for entry in entries.sorted() where suffixes.contains(where: entry.hasSuffix) {
                if let bundle = Bundle(url: directory.appendingPathComponent(entry)) { return bundle }
            }
        }
        return nil
    }

    /// What to tell a developer whose app has no HybridKit bundle.
    package static let shippingAdvice =
        "ship HybridKit's resource bundle with the app: the HybridKit_HybridKit.resources directory beside the "
        + "executable on Linux, HybridKit_HybridKit.bundle in the app (Xcode copies it when the app links the HybridKit "
        + "product), and HybridKit_HybridCookies likewise"

    private final class Anchor {}

    private static func searchedDirectories() -> [URL] {
        var directories = [Bundle.main.resourceURL, Bundle.main.bundleURL, Bundle(for: Anchor.self).resourceURL]
        #if os(Linux)
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        #endif
        directories.append(Bundle.main.executableURL?.deletingLastPathComponent())
        var seen = Set<String>()
        return directories.compactMap { $0?.standardizedFileURL }.filter { seen.insert($0.path).inserted }
    }
}
