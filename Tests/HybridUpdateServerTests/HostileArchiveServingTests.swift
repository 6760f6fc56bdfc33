import Foundation
import HybridPackages
import HybridKit
import HybridTestSupport
import Testing

/// `hybrid serve` reads every zip dropped into its directory. A hostile one (here the ZIP64 local-header offset
/// of 2^63 that used to trap ZIPFoundation on the next request) is skipped and logged; the server stays up and
/// keeps publishing the good packages beside it.
@Suite("Update server with a hostile zip in its directory")
struct HostileArchiveServingTests {
    let http = RawHTTP()

    @Test func hostileZipIsSkippedAndTheServerKeepsServing() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let image = try ZipImage(parsing: [UInt8](try Data(contentsOf: fixture.full2)))
        let (bytes, fields) = image.write(.zip64)
        let field = try #require(
            fields.first { $0.name.hasPrefix("entry1(") && $0.name.hasSuffix(".zip64.localHeaderOffset") })
        try Data(bytes.patching(field, with: 1 << 63)).write(
            to: fixture.served.appendingPathComponent("shop-2.0.0.zip"))

        let server = try await fixture.startServer()
        defer { server.stop() }
        let latest = server.baseURL.appendingPathComponent("v1/packages/\(ServerFixture.id)/latest")
        // Twice: the second request reads the directory again (from the catalog's cache of refusals).
        for _ in 0..<2 {
            let document = try JSONDecoder().decode(ReleaseDocument.self, from: try await http.get(latest).body)
            #expect(document.version == "1.0.0")
        }
        let hostile = try await http.get(server.baseURL.appendingPathComponent("v1/files/shop-2.0.0.zip"))
        #expect(hostile.status == 404)
        let good = try await http.get(server.baseURL.appendingPathComponent("v1/files/shop-1.0.0.zip"))
        #expect(good.status == 200)
    }
}
