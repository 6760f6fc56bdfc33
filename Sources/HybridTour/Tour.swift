#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation

/// The demo pages bundled with HybridTour.
public enum TourPages {
    /// The folder holding the pages (`bridge/index.html`, …).
    public static var directory: URL? {
        Bundle.module.url(forResource: "Pages", withExtension: nil)
    }
}
#endif
