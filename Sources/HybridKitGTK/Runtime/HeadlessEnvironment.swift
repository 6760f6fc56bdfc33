#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation

/// The process environment WebKitGTK reads for the ``GTKRuntime/Options`` a host chose.
///
/// Each variable is set only when the caller has not set it, so a developer can always override one.
enum HeadlessEnvironment {
    static let softwareRendering: [(String, String)] = [
        ("GDK_BACKEND", "x11"),
        ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
        ("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
        ("LIBGL_ALWAYS_SOFTWARE", "1"),
    ]

    static var isInContainer: Bool {
        let fileManager = FileManager.default
        return fileManager.fileExists(atPath: "/.dockerenv") || fileManager.fileExists(atPath: "/run/.containerenv")
            || ProcessInfo.processInfo.environment["container"] != nil
    }

    static func apply(_ options: GTKRuntime.Options) {
        var settings: [(String, String)] = []
        // Xvfb is an X server: GDK must not try Wayland first.
        if options.startsVirtualDisplay { settings.append(("GDK_BACKEND", "x11")) }
        if options.softwareRendering { settings += softwareRendering }
        if options.sandbox == .offInContainers, isInContainer {
            settings.append(("WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS", "1"))
        }
        for (name, value) in settings where getenv(name) == nil {
            setenv(name, value, 0)
        }
    }
}
#endif
