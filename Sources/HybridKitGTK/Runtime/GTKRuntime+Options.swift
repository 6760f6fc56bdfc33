#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
extension GTKRuntime {
    /// What the runtime may change about the process to run WebKit where there is no desktop. Each one is off
    /// unless the host turns it on: the library never weakens WebKit (its sandbox, its rendering) by itself.
    public struct Options: Sendable, Equatable {
        /// Start an Xvfb display (Debian package `xvfb`) when `DISPLAY` is unset, instead of failing.
        public var startsVirtualDisplay: Bool
        /// Render in software, without DMA-BUF or compositing: for machines without a GPU (Xvfb has none).
        public var softwareRendering: Bool
        /// When to turn WebKit's bubblewrap sandbox off (`WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS`). Pages then
        /// run without the process isolation WebKit gives them: only for trusted pages on machines where the
        /// sandbox cannot start.
        public var sandbox: Sandbox

        public enum Sandbox: Sendable, Equatable {
            /// WebKit's sandbox stays on.
            case on
            /// Off only inside a container (Docker, Podman), which usually forbids the user namespaces the
            /// sandbox needs, so the web process would not start at all.
            case offInContainers
        }

        public init(startsVirtualDisplay: Bool = false, softwareRendering: Bool = false, sandbox: Sandbox = .on) {
            self.startsVirtualDisplay = startsVirtualDisplay
            self.softwareRendering = softwareRendering
            self.sandbox = sandbox
        }

        /// For tests, CI and demos on machines with no display and no GPU, possibly in a container: Xvfb when
        /// there is no display, software rendering, and the sandbox off inside containers only.
        public static let headless = Options(
            startsVirtualDisplay: true, softwareRendering: true, sandbox: .offInContainers)
    }
}
#endif
