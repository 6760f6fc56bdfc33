import Foundation
import HybridPackages
import HybridKit
import HybridUpdateServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The catalog never serves a stale ETag or hash, and never lets one bad file take the server down.
@Suite("Update server: catalog")
struct CatalogFreshnessTests {
    let http = RawHTTP()

    enum Replacement: CaseIterable {
        /// Overwritten through the same inode (`Data.write` without `.atomic`).
        case inPlace
        /// A new file renamed over the old one, as `rsync` and most deploy tools do.
        case rename
    }

    /// Two valid packages of exactly the same size: their one content file is stored (a `.png` is never
    /// deflated) and differs only in its bytes. The signature's JSON escapes each `/` of its base64, so its length
    /// varies: the second package is packed from other letters until the sizes agree.
    /// 625 candidates for the second: with 25 (one letter each), no size matched about once in a few hundred runs.
    static func sameSizePackages(_ fixture: ServerFixture) throws -> (URL, URL) {
        func pack(_ content: String, to url: URL) throws -> Int {
            try? FileManager.default.removeItem(at: url)
            try fixture.pack("1.0.0", files: ["index.html": "<html></html>", "data.png": content], to: url)
            return try Data(contentsOf: url).count
        }
        let first = fixture.root.appendingPathComponent("a.zip")
        let second = fixture.root.appendingPathComponent("b.zip")
        let size = try pack(String(repeating: "a", count: 300), to: first)
        let letters = Array("bcdefghijklmnopqrstuvwxyz")
        for index in 0..<(letters.count * letters.count) {
            let content =
                String(repeating: letters[index % letters.count], count: 299) + String(letters[index / letters.count])
            if try pack(content, to: second) == size { break }
        }
        return (first, second)
    }

    static func modificationTime(_ url: URL) throws -> timespec {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw POSIXError(.ENOENT) }
        return info.st_mtim
    }

    static func setModificationTime(_ url: URL, _ time: timespec) throws {
        var times = [time, time]
        guard utimensat(AT_FDCWD, url.path, &times, 0) == 0 else { throw POSIXError(.EPERM) }
    }

    /// A file replaced by another of the same size and modification time (to the nanosecond) gets the new
    /// file's ETag and hash. Waits out the catalog's window for recently changed files first, so what is
    /// checked is the cache key itself, not the re-hash of files changed in the last moments.
    @Test(arguments: Replacement.allCases)
    func replacedFileWithSameSizeAndTimeGetsANewETag(_ replacement: Replacement) async throws {
        let fixture = try ServerFixture()
        let (first, second) = try Self.sameSizePackages(fixture)
        let firstBytes = try Data(contentsOf: first)
        let secondBytes = try Data(contentsOf: second)
        try #require(firstBytes.count == secondBytes.count && firstBytes != secondBytes)
        let served = fixture.served.appendingPathComponent("shop.zip")
        try FileManager.default.copyItem(at: first, to: served)
        let time = try Self.modificationTime(served)
        try await Task.sleep(for: .milliseconds(2_200))
        let server = try await fixture.startServer()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("v1/files/shop.zip")
        let latest = server.baseURL.appendingPathComponent("v1/packages/\(ServerFixture.id)/latest")

        let before = try await http.get(url)
        #expect(before.header("ETag") == "\"\(try ServerFixture.sha256(first))\"")
        #expect(before.body == firstBytes)

        switch replacement {
        case .inPlace:
            try secondBytes.write(to: served)
        case .rename:
            let temporary = fixture.served.appendingPathComponent(".shop.zip.partial")
            try secondBytes.write(to: temporary)
            try Self.setModificationTime(temporary, time)
            #expect(rename(temporary.path, served.path) == 0)
        }
        try Self.setModificationTime(served, time)
        let now = try Self.modificationTime(served)
        #expect(now.tv_sec == time.tv_sec && now.tv_nsec == time.tv_nsec)

        let secondSHA = try ServerFixture.sha256(second)
        let after = try await http.get(url)
        #expect(after.header("ETag") == "\"\(secondSHA)\"")
        #expect(after.body == secondBytes)
        let document = try JSONDecoder().decode(ReleaseDocument.self, from: try await http.get(latest).body)
        #expect(document.full.sha256 == secondSHA)
        // And a resume keyed on the old ETag is refused a splice.
        let resumed = try await http.get(
            url, headers: ["Range": "bytes=100-", "If-Range": before.header("ETag") ?? ""])
        #expect(resumed.status == 200)
    }

    /// Garbage, empty, truncated and not-regular files named `.zip` are skipped; the good package is served.
    @Test func hostileFilesAreSkippedAndTheRestServed() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let served = fixture.served
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(
            to: served.appendingPathComponent("garbage.zip"))
        try Data().write(to: served.appendingPathComponent("empty.zip"))
        let full = try Data(contentsOf: fixture.full1)
        try full.prefix(full.count / 2).write(to: served.appendingPathComponent("truncated.zip"))
        try full.suffix(full.count / 2).write(to: served.appendingPathComponent("tail.zip"))
        // A zip whose central directory is intact but whose local headers were overwritten.
        var mangled = full
        mangled.replaceSubrange(
            0..<min(2000, mangled.count), with: Data(repeating: 0x50, count: min(2000, mangled.count)))
        try mangled.write(to: served.appendingPathComponent("mangled.zip"))
        try FileManager.default.createDirectory(
            at: served.appendingPathComponent("directory.zip"), withIntermediateDirectories: true)
        // Opening a FIFO for reading would block until a writer comes: it must never be opened.
        #expect(mkfifo(served.appendingPathComponent("fifo.zip").path, 0o644) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: served.appendingPathComponent("loop.zip").path, withDestinationPath: "loop.zip")
        try FileManager.default.createSymbolicLink(
            atPath: served.appendingPathComponent("zero.zip").path, withDestinationPath: "/dev/zero")

        let server = try await fixture.startServer()
        defer { server.stop() }
        for _ in 0..<2 {
            let latest = try await http.get(
                server.baseURL.appendingPathComponent("v1/packages/\(ServerFixture.id)/latest"))
            #expect(latest.status == 200)
            let document = try JSONDecoder().decode(ReleaseDocument.self, from: latest.body)
            #expect(document.full.url == "/v1/files/shop-1.0.0.zip")
            for name in ["garbage", "empty", "truncated", "tail", "mangled", "directory", "fifo", "loop", "zero"] {
                let answer = try await http.get(server.baseURL.appendingPathComponent("v1/files/\(name).zip"))
                #expect(answer.status == 404, "\(name).zip")
            }
            let good = try await http.get(server.baseURL.appendingPathComponent("v1/files/shop-1.0.0.zip"))
            #expect(good.status == 200)
        }
    }
}
