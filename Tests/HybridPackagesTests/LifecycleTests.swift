import Foundation
import HybridPackages
import Testing

@Suite struct LifecycleTests {
    func content(_ store: PackageStore, _ path: String) throws -> String? {
        guard let file = try PackageResolver(store: store).resolve(Fixture.serves + path) else {
            return nil
        }
        return try String(contentsOf: file.fileURL, encoding: .utf8)
    }

    @Test func installUpdateFullAndDiffRollbackAndCollectGarbage() throws {
        let fixture = try Fixture()
        let store = try fixture.openStore(keepVersions: 2)
        let installer = fixture.installer(store)
        let id = "com.example.shop"

        // Install without activating: nothing serves yet.
        let v1 = try fixture.pack("1.0.0")
        try installer.install(packageAt: v1, activate: false)
        #expect(store.activeVersion(id) == nil)
        try store.activate(id, version: "1.0.0")
        #expect(try content(store, "index.html") == "<html>shop 1.0.0</html>")

        // Full update.
        try installer.install(packageAt: try fixture.pack("1.1.0"))
        #expect(store.activeVersion(id) == "1.1.0")
        #expect(try content(store, "app.js") == "console.log('1.1.0')")

        // Diff update 1.1.0 -> 2.0.0: one file changed, one added, one removed.
        var files = Fixture.files(version: "2.0.0")
        files["assets/new.js"] = "new()"
        files["assets/logo.svg"] = nil
        files["assets/unchanged.css"] = "body{}"
        let v2 = try fixture.pack("2.0.0", files: files)
        let diff = fixture.url("diff.zip")
        let diffManifest = try PackageDiffBuilder().buildDiff(
            from: fixture.url("com.example.shop-1.1.0.zip"), to: v2, keyPair: fixture.keyPair,
            output: diff)
        #expect(diffManifest.diff?.baseVersion == "1.1.0")
        #expect(diffManifest.diff?.removed == ["assets/logo.svg"])
        #expect(Set(diffManifest.diff?.changed ?? []) == ["app.js", "assets/new.js", "index.html"])
        #expect(!(try Fixture.entries(of: diff)).contains { $0.path == "content/assets/unchanged.css" })
        try PackageVerifier(trustedKey: fixture.keyPair.verificationKey).verify(packageAt: diff)
        try installer.install(packageAt: diff)
        #expect(store.activeVersion(id) == "2.0.0")
        #expect(try content(store, "assets/new.js") == "new()")
        #expect(try content(store, "assets/unchanged.css") == "body{}")
        #expect(try content(store, "assets/logo.svg") == nil)
        // keep-N = 2: 1.0.0 was collected when 2.0.0 was activated.
        #expect(store.installedVersions(id) == ["1.1.0", "2.0.0"])
        #expect(store.history(id) == ["2.0.0", "1.1.0"])

        // Rollback, and the rolled-back-from version is forgotten.
        #expect(try store.rollback(id) == "1.1.0")
        #expect(store.activeVersion(id) == "1.1.0")
        #expect(try content(store, "index.html") == "<html>shop 1.1.0</html>")
        #expect(try store.collectGarbage(id) == ["2.0.0"])
        #expect(store.installedVersions(id) == ["1.1.0"])
        expectPackageError({ if case .noPreviousVersion = $0 { true } else { false } }) {
            try store.rollback(id)
        }

        // A fresh open sees the same state, with nothing to repair.
        let reopened = try fixture.openStore(keepVersions: 2)
        #expect(reopened.repairReport.isClean)
        #expect(reopened.activeVersion(id) == "1.1.0")
    }

    @Test func keepsNVersions() throws {
        let fixture = try Fixture()
        let store = try fixture.openStore(keepVersions: 3)
        let installer = fixture.installer(store)
        for version in ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0"] {
            try installer.install(packageAt: try fixture.pack(version))
        }
        #expect(store.installedVersions("com.example.shop") == ["1.2.0", "1.3.0", "1.4.0"])
        #expect(try store.rollback("com.example.shop") == "1.3.0")
        #expect(try store.rollback("com.example.shop") == "1.2.0")
    }

    @Test func reinstallingAnInstalledVersionIsRefused() throws {
        let fixture = try Fixture()
        let store = try fixture.openStore()
        let package = try fixture.pack("1.0.0")
        try fixture.installer(store).install(packageAt: package)
        expectPackageError({ if case .alreadyInstalled = $0 { true } else { false } }) {
            try fixture.installer(store).install(packageAt: package)
        }
    }
}
