#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitTesting

/// The pages the benchmarks load (`bench/bridge.html`, `bench/flood.html`, `bench/paint.html`), bundled with
/// HybridBench.
public enum BenchPages {
    /// The folder holding the pages; nil when the bundle lost them.
    public static var directory: URL? {
        Bundle.module.url(forResource: "Pages", withExtension: nil)
    }

    /// The pages served under `app://` (the benchmarks' pages at `app://<host>/bench/…`).
    static var serving: DirectoryServing? { directory.map { DirectoryServing(root: $0) } }

    public enum Failure: Error, CustomStringConvertible {
        case missing

        public var description: String {
            "the bench pages are missing from HybridBench's bundle; rebuild the package"
        }
    }
}
#endif
