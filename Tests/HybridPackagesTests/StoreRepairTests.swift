import Foundation
import HybridPackages
import Testing

@Suite struct StoreRepairTests {
    func installTwo(_ fixture: Fixture) throws {
        let store = try fixture.openStore()
        try fixture.installer(store).install(packageAt: try fixture.pack("1.0.0"))
        try fixture.installer(store).install(packageAt: try fixture.pack("2.0.0"))
    }

    var versions: String { "com.example.shop/versions" }

    @Test func damagedActiveVersionFallsBackToThePreviousOne() throws {
        let fixture = try Fixture()
        try installTwo(fixture)
        let file = fixture.storeRoot.appendingPathComponent("\(versions)/2.0.0/content/app.js")
        try Data("short".utf8).write(to: file)
        let store = try fixture.openStore()
        #expect(store.activeVersion("com.example.shop") == "1.0.0")
        #expect(store.repairReport.discardedVersions == ["com.example.shop/2.0.0"])
        #expect(store.repairReport.repairedPointers == ["com.example.shop"])
    }

    @Test func corruptPointerIsRepairedToTheNewestIntactVersion() throws {
        let fixture = try Fixture()
        try installTwo(fixture)
        try Data("{garbage".utf8).write(
            to: fixture.storeRoot.appendingPathComponent("com.example.shop/active.json"))
        let store = try fixture.openStore()
        #expect(store.activeVersion("com.example.shop") == "2.0.0")
        #expect(store.repairReport.repairedPointers == ["com.example.shop"])
    }

    @Test func storeWithNothingIntactIsDiscarded() throws {
        let fixture = try Fixture()
        try installTwo(fixture)
        for version in ["1.0.0", "2.0.0"] {
            try FileManager.default.removeItem(
                at: fixture.storeRoot.appendingPathComponent("\(versions)/\(version)/manifest.json"))
        }
        let store = try fixture.openStore()
        #expect(store.activeVersion("com.example.shop") == nil)
        #expect(store.repairReport.discardedPackages == ["com.example.shop"])
        #expect(try PackageResolver(store: store).resolve(Fixture.serves + "index.html") == nil)
    }

    @Test func tamperedInstalledManifestIsCaughtBySignatureOnOpen() throws {
        let fixture = try Fixture()
        try installTwo(fixture)
        let manifest = fixture.storeRoot.appendingPathComponent("\(versions)/2.0.0/manifest.json")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "app.example.com", with: "evil.example.com").utf8).write(
            to: manifest)
        let store = try fixture.openStore()
        #expect(store.activeVersion("com.example.shop") == "1.0.0")
    }
}
