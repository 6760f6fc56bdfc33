#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit

/// The host's part of main-document redirects: tells the handler which loads are the main frame's.
final class MainFrameNotes: NavigationDelegate {
    private let handler: PackageSchemeHandler

    init(_ handler: PackageSchemeHandler) { self.handler = handler }

    // Not `decidePolicy(for:)`: WebKitGTK asks it for iframes too, marked as main-frame.
    func didStartNavigation(to url: URL?) {
        if let url { handler.noteMainFrameNavigation(to: url) }
    }
}
#endif
