#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Logging

/// Finds HybridKit's web-process extension (`libHybridWebExtension.so`, built from WebProcessExtension/ as a
/// resource of this module) and gives WebKit a directory holding only it.
///
/// WebKit loads every library in the directory it is given into each web process, so the extension is
/// copied into a private directory rather than pointing WebKit at a build folder full of other files.
enum FrameStampingExtension {
    static let libraryName = "libHybridWebExtension.so"

    /// The directory to hand to `webkit_web_context_set_web_extensions_directory`, or nil (logged) when the
    /// library cannot be found — the bridge then falls back to the origins pages claim.
    static func prepareDirectory(logger: Logger) -> String? {
        guard let library = locate() else {
            logger.warning(
                "\(libraryName) not found in the HybridKitGTK resource bundle beside the executable (\(resourceBundleSuffix)); frame origins cannot be verified and modules limited to origins or the main frame will refuse calls. Ship the bundle SwiftPM builds beside your executable, or set HYBRID_WEB_EXTENSION to the library's path."
            )
            return nil
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("hybridkit-web-extension-\(getuid())-\(getpid())", isDirectory: true)
        let target = directory.appendingPathComponent(libraryName)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: library, to: target)
        } catch {
            logger.warning(
                "cannot stage \(libraryName) in \(directory.path): \(error); frame origins cannot be verified")
            return nil
        }
        atexit { try? FileManager.default.removeItem(at: FrameStampingExtension.stagedDirectory) }
        return directory.path
    }

    private static var stagedDirectory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("hybridkit-web-extension-\(getuid())-\(getpid())")
    }

    /// Where the extension is: `HYBRID_WEB_EXTENSION` if set, else the adapter's resource bundle beside the
    /// executable, where SwiftPM's build (the WebProcessExtensionBuilder plugin) puts it for every product and
    /// test bundle that links HybridKitGTK. An app that installs its executable elsewhere ships that
    /// `…_HybridKitGTK.resources` directory beside it, as it does for any package's resources.
    ///
    /// The bundle is found by its name's suffix rather than through `Bundle.module`, whose accessor stops the
    /// process when the bundle is missing; a missing extension must be a logged warning and a bridge that fails
    /// closed, not a crash.
    static func locate() -> URL? {
        let files = FileManager.default
        if let explicit = ProcessInfo.processInfo.environment["HYBRID_WEB_EXTENSION"] {
            return URL(fileURLWithPath: explicit)
        }
        var directories: [URL] = []
        if let executable = try? files.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        if let executable = Bundle.main.executableURL {
            directories.append(executable.deletingLastPathComponent())
        }
        for directory in directories {
            let bundles = (try? files.contentsOfDirectory(atPath: directory.path)) ?? []
            for bundle in bundles.sorted() where bundle.hasSuffix(resourceBundleSuffix) {
                let library = directory.appendingPathComponent(bundle).appendingPathComponent(libraryName)
                if files.isReadableFile(atPath: library.path) { return library }
            }
        }
        return nil
    }

    /// SwiftPM names a target's resource bundle `<package>_<target>.resources` on Linux.
    private static let resourceBundleSuffix = "_HybridKitGTK.resources"
}
#endif
