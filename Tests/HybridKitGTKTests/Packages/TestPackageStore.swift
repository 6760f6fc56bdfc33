#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridDemo
import HybridPackages

/// A package store under `root` with the files of `site` packed, signed with a fresh key and installed as 1.0.0.
func installTestPackage(site: URL, id: String, serves: [String], in root: URL) throws -> PackageStore {
    try DemoPackage.install(site: site, id: id, serves: serves, in: root)
}
#endif
