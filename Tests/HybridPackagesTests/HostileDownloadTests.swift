import Foundation
import HybridPackages
import HybridTestSupport
import Testing

/// The updater meets a hostile package (a ZIP64 offset of 2^63 on an entry read before the signature): the
/// update fails with a typed error, every time it is retried, and the installed version keeps serving.
@Suite struct HostileDownloadTests {
    @Test func hostileDownloadLeavesThePreviousVersionServing() async throws {
        let fixture = try Fixture()
        let store = try fixture.openStore()
        let installer = fixture.installer(store)
        try installer.install(packageAt: try fixture.pack("1.0.0"))
        let image = try ZipImage(parsing: [UInt8](try Data(contentsOf: try fixture.pack("2.0.0"))))
        let (bytes, fields) = image.write(.zip64)
        let field = try #require(
            fields.first { $0.name.hasPrefix("entry1(") && $0.name.hasSuffix(".zip64.localHeaderOffset") })
        let hostile = fixture.url("hostile-2.0.0.zip")
        try Data(bytes.patching(field, with: 1 << 63)).write(to: hostile)
        let client = InMemoryUpdateClient()
        client.setRelease(
            PackageRelease(
                id: "com.example.shop", version: "2.0.0", full: try client.publish(hostile, location: "full-2"),
                diffs: [:]))
        let updater = PackageUpdater(installer: installer, client: client)
        for attempt in 1...2 {
            let error = await #expect(throws: PackageError.self, "attempt \(attempt)") {
                try await updater.update("com.example.shop")
            }
            guard case .archiveMalformed = error else {
                Issue.record("attempt \(attempt): expected archiveMalformed, got \(String(describing: error))")
                continue
            }
            #expect(store.activeVersion("com.example.shop") == "1.0.0")
        }
        let downloads = fixture.storeRoot.appendingPathComponent(".downloads")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []).isEmpty)
        let reopened = try PackageStore(
            root: fixture.storeRoot, trustedKey: fixture.keyPair.verificationKey, integrityCheck: .hashes)
        #expect(reopened.repairReport.isClean)
        #expect(reopened.installedVersions("com.example.shop") == ["1.0.0"])
        let page = try #require(try PackageResolver(store: reopened).resolve(Fixture.serves + "index.html"))
        #expect(try String(contentsOf: page.fileURL, encoding: .utf8) == "<html>shop 1.0.0</html>")
    }
}
