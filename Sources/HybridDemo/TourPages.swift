#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitTesting

/// The pages bundled with HybridDemo: the bridge tour (`bridge/`) and the pages under `test/` that the demo's
/// container sections, `hybrid demo --page` and the integration tests load under `app://demo/`.
public enum TourPages {
    /// The folder holding the pages (`bridge/index.html`, …).
    public static var directory: URL? {
        Bundle.module.url(forResource: "Pages", withExtension: nil)
    }
}

extension DirectoryServing {
    /// The tour pages under `app://demo/`; nil when the bundle lost them.
    public static var tourPages: DirectoryServing? { TourPages.directory.map { DirectoryServing(root: $0) } }
}
#endif
