import Foundation
import HybridPackages
import Testing

/// The installer sizes its extraction buffer per entry (its size plus one, at most 256 KiB): files on either
/// side of those edges, compressible or not, must come out byte for byte.
@Suite struct ExtractionSizeTests {
    static let chunk = 256 * 1024

    static func noise(count: Int, seed: UInt64) -> Data {
        var state = seed
        return Data(
            (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            })
    }

    @Test func filesAroundTheBufferEdgesInstallIntact() throws {
        let fixture = try Fixture()
        var files: [String: Data] = ["index.html": Data("<html>sizes</html>".utf8)]
        for size in [0, 1, 2, Self.chunk - 1, Self.chunk, Self.chunk + 1, 4 * Self.chunk + 3] {
            // Noise stores bigger than it is (deflate falls back to stored blocks); text shrinks a lot.
            files["noise-\(size).bin"] = Self.noise(count: size, seed: UInt64(size) + 1)
            files["text-\(size).txt"] = Data(String(repeating: "line \(size)\n", count: size / 8 + 1).utf8.prefix(size))
        }
        let site = fixture.url("site-sizes")
        for (path, data) in files {
            try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
            try data.write(to: site.appendingPathComponent(path))
        }
        let zip = fixture.url("sizes.zip")
        try PackagePacker().pack(
            directory: site, options: PackOptions(id: "com.example.sizes", version: "1.0.0", serves: [Fixture.serves]),
            keyPair: fixture.keyPair, to: zip)

        let store = try fixture.openStore()
        let installed = try fixture.installer(store).install(packageAt: zip)
        #expect(installed.manifest.files.count == files.count)
        for (path, data) in files {
            let written = try Data(contentsOf: installed.fileURL(for: path))
            #expect(written == data, "\(path): \(written.count) bytes, expected \(data.count)")
        }
        // What the installer returned without reading it back is what a fresh store reads from disk.
        let reopened = try fixture.openStore()
        #expect(reopened.activePackage("com.example.sizes")?.manifest == installed.manifest)
    }
}
