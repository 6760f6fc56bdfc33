#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation

/// The request-body conformance pages (`bodies/conformance.html`, `bodies/frames.html`) that ``BodiesLab`` serves
/// next to the ``BodyEcho`` routes, bundled with HybridTestServers.
public enum BodiesPages {
    /// The folder holding the pages; nil when the bundle lost them.
    public static var directory: URL? {
        Bundle.module.url(forResource: "Pages", withExtension: nil)
    }
}
#endif
