import Foundation

/// The process environment WebKitGTK needs to render without a GPU or a desktop session.
///
/// Each variable is set only when the caller has not set it, so a developer can always override one.
enum HeadlessEnvironment {
    static let defaults: [(String, String)] = [
        ("GDK_BACKEND", "x11"),
        ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
        ("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
        ("LIBGL_ALWAYS_SOFTWARE", "1"),
    ]

    /// Containers usually forbid the user namespaces WebKit's bubblewrap sandbox needs; the web process then
    /// fails to start. Outside a container the sandbox stays on.
    static var isInContainer: Bool {
        let fileManager = FileManager.default
        return fileManager.fileExists(atPath: "/.dockerenv") || fileManager.fileExists(atPath: "/run/.containerenv")
            || ProcessInfo.processInfo.environment["container"] != nil
    }

    static func apply() {
        var settings = defaults
        if isInContainer { settings.append(("WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS", "1")) }
        for (name, value) in settings where getenv(name) == nil {
            setenv(name, value, 0)
        }
    }
}
