import Foundation
import PackagePlugin

/// Builds HybridKit's WebKitGTK web-process extension (`libHybridWebExtension.so`) as a resource of the
/// target that uses this plugin, so any build of that target — `swift build --product hybrid`, a release
/// build, an app that depends on the package — carries the extension WebKit needs to verify frames.
///
/// The extension is a shared library that WebKit's web processes `dlopen`; SwiftPM cannot produce one as a
/// dependency of a library target (a `.dynamic` product is built only when asked for by name), so it is
/// compiled here with the toolchain's clang, with WebKitGTK's web-extension flags from pkg-config.
@main
struct WebProcessExtensionBuilder: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        // WebKitGTK is in this build only where the target depends on its C module: Package.swift conditions that
        // dependency on Linux (and drops it in the Apple layout). Elsewhere (a Mac, an iOS app) there is no
        // WebKitGTK to extend, so nothing is built and pkg-config is never asked.
        guard Self.linksWebKitGTK(target) else {
            Diagnostics.remark(
                "\(target.name): no WebKitGTK in this build (it is Linux only), so no web-process extension is built")
            return []
        }
        let sources = target.directoryURL.appending(path: "WebProcessExtension")
        let source = sources.appending(path: "frame_stamp.c")
        let header = sources.appending(path: "hybrid_web_extension.h")
        let library = context.pluginWorkDirectoryURL.appending(path: "libHybridWebExtension.so")
        let clang = try context.tool(named: "clang").url
        // A shell for pkg-config's flags, which must be split into words; a missing package fails the build
        // with pkg-config's own message naming it (install libwebkit2gtk-4.1-dev: scripts/install-deps.sh).
        let script = """
            set -e
            flags=$(pkg-config --cflags --libs webkit2gtk-web-extension-4.1)
            exec "$0" -shared -fPIC -O2 -fvisibility=hidden -Wall -Werror -o "$1" "$2" $flags
            """
        return [
            .buildCommand(
                displayName: "Building the web-process extension libHybridWebExtension.so",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, clang.path, library.path, source.path],
                inputFiles: [source, header],
                outputFiles: [library]
            )
        ]
    }

    /// Whether the target depends, on the platform being built, on `CWebKitGTK` (SwiftPM hands plugins only the
    /// dependencies whose platform condition holds).
    static func linksWebKitGTK(_ target: Target) -> Bool {
        target.dependencies.contains { dependency in
            if case .target(let dependencyTarget) = dependency { return dependencyTarget.name == "CWebKitGTK" }
            return false
        }
    }
}
