import Foundation
import Logging

/// Finds HybridKit's web-process extension (`libHybridWebExtension.so`, the `HybridWebExtension` product)
/// and gives WebKit a directory holding only it.
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
                "\(libraryName) not found next to the executable; frame origins cannot be verified. Build it with `swift build` (or set HYBRID_WEB_EXTENSION to its path)."
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

    private static func locate() -> URL? {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["HYBRID_WEB_EXTENSION"] {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        // SwiftPM puts the library beside the executables and the test bundle it builds.
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(
                URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(libraryName))
        }
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(libraryName))
        }
        return candidates.first { FileManager.default.isReadableFile(atPath: $0.path) }
    }
}
