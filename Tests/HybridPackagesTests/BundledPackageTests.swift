import Foundation
import HybridPackages
import Testing

/// The package an app ships inside itself: installed once, never over what updates installed since, never when its
/// signature or files do not verify.
struct BundledPackageTests {
    @Test func aFreshStoreGetsTheBundledVersionOnceAndALaunchAfterChangesNothing() throws {
        let fixture = try Fixture()
        let zip = try fixture.pack("1.0.0")
        let store = try fixture.openStore()
        let bundled = BundledPackage(at: zip, trustedKey: fixture.keyPair.verificationKey)
        #expect(try bundled.install(into: store) == .installed(SemanticVersion(major: 1, minor: 0, patch: 0)))
        #expect(store.activeVersion("com.example.shop")?.description == "1.0.0")
        #expect(try bundled.install(into: store) == .alreadyInstalled(SemanticVersion(major: 1, minor: 0, patch: 0)))
    }

    @Test func anUpdateInstalledSinceKeepsServing() throws {
        let fixture = try Fixture()
        let bundledZip = try fixture.pack("1.0.0")
        let store = try fixture.openStore()
        try PackageInstaller(
            store: store, trustedKey: fixture.keyPair.verificationKey, containerVersion: fixture.containerVersion
        ).install(packageAt: try fixture.pack("1.2.0"))
        let bundled = BundledPackage(at: bundledZip, trustedKey: fixture.keyPair.verificationKey)
        #expect(try bundled.install(into: store) == .newerActive(SemanticVersion(major: 1, minor: 2, patch: 0)))
        #expect(store.activeVersion("com.example.shop")?.description == "1.2.0")
        #expect(store.installedVersions("com.example.shop").map(\.description) == ["1.2.0"])
    }

    @Test func anAppUpdateBringingANewerPackageInstallsIt() throws {
        let fixture = try Fixture()
        let store = try fixture.openStore()
        let key = fixture.keyPair.verificationKey
        try BundledPackage(at: try fixture.pack("1.0.0"), trustedKey: key).install(into: store)
        #expect(
            try BundledPackage(at: try fixture.pack("2.0.0"), trustedKey: key).install(into: store)
                == .installed(SemanticVersion(major: 2, minor: 0, patch: 0)))
        #expect(store.activeVersion("com.example.shop")?.description == "2.0.0")
    }

    @Test func aPackageSignedByAnotherKeyIsRefusedAndTheStoreIsUnchanged() throws {
        let fixture = try Fixture()
        let store = try fixture.openStore()
        let key = fixture.keyPair.verificationKey
        try BundledPackage(at: try fixture.pack("1.0.0"), trustedKey: key).install(into: store)
        let forged = try fixture.pack("9.0.0", keyPair: PackageKeyPair.generate())
        #expect(throws: PackageError.self) { try BundledPackage(at: forged, trustedKey: key).install(into: store) }
        #expect(store.activeVersion("com.example.shop")?.description == "1.0.0")
        #expect(store.installedVersions("com.example.shop").map(\.description) == ["1.0.0"])
    }

    @Test func aTruncatedPackageIsRefusedWithATypedError() throws {
        let fixture = try Fixture()
        let zip = try fixture.pack("1.0.0")
        let bytes = try Data(contentsOf: zip)
        try bytes.prefix(bytes.count / 2).write(to: zip)
        let store = try fixture.openStore()
        #expect(throws: PackageError.self) {
            try BundledPackage(at: zip, trustedKey: fixture.keyPair.verificationKey).install(into: store)
        }
        #expect(store.activeVersion("com.example.shop") == nil)
    }
}
