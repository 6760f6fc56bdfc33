import Foundation
import HybridPackages
import HybridKit
import HybridUpdateServer
import Testing

@Suite("Update server HTTP")
struct UpdateServerHTTPTests {
    let http = RawHTTP()

    @Test func latestListsNewestFullAndDiffs() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1, fixture.full2, fixture.diff12)
        let server = try await fixture.startServer()
        defer { server.stop() }

        let answer = try await http.get(
            server.baseURL.appendingPathComponent("v1/packages/\(ServerFixture.id)/latest"))
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type")?.hasPrefix("application/json") == true)
        let document = try JSONDecoder().decode(ReleaseDocument.self, from: answer.body)
        #expect(document.id == ServerFixture.id)
        #expect(document.version == "2.0.0")
        #expect(document.full.url == "/v1/files/shop-2.0.0.zip")
        #expect(document.full.sha256 == (try ServerFixture.sha256(fixture.full2)))
        #expect(document.full.size == (try Data(contentsOf: fixture.full2)).count)
        #expect(document.diffs.count == 1)
        #expect(document.diffs.first?.from == "1.0.0")
        #expect(document.diffs.first?.url == "/v1/files/shop-1.0.0-to-2.0.0.zip")
        #expect(document.diffs.first?.sha256 == (try ServerFixture.sha256(fixture.diff12)))
        // The raw JSON has exactly the documented shape.
        let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        #expect(Set(object?.keys.map { $0 } ?? []) == ["id", "version", "full", "diffs"])
    }

    @Test func unknownPackageAndFileAre404() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let latest = try await http.get(server.baseURL.appendingPathComponent("v1/packages/com.other/latest"))
        #expect(latest.status == 404)
        let file = try await http.get(server.baseURL.appendingPathComponent("v1/files/nope.zip"))
        #expect(file.status == 404)
        // A name that tries to leave the directory is simply not a catalogued package.
        let escape = try await http.get(
            try #require(URL(string: "v1/files/..%2Fshop-1.0.0.zip", relativeTo: server.baseURL)))
        #expect(escape.status == 404)
    }

    @Test func newlyPublishedPackagesShowUpWithoutRestart() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("v1/packages/\(ServerFixture.id)/latest")
        let before = try JSONDecoder().decode(ReleaseDocument.self, from: try await http.get(url).body)
        #expect(before.version == "1.0.0" && before.diffs.isEmpty)
        try fixture.publish(fixture.full2)
        let after = try JSONDecoder().decode(ReleaseDocument.self, from: try await http.get(url).body)
        #expect(after.version == "2.0.0")
    }

    @Test func strongETagAndIfNoneMatch() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("v1/files/shop-1.0.0.zip")
        let sha = try ServerFixture.sha256(fixture.full1)

        let first = try await http.get(url)
        #expect(first.status == 200)
        #expect(first.header("ETag") == "\"\(sha)\"")
        #expect(first.header("Accept-Ranges") == "bytes")
        #expect(first.body == (try Data(contentsOf: fixture.full1)))

        let cached = try await http.get(url, headers: ["If-None-Match": "\"\(sha)\""])
        #expect(cached.status == 304)
        #expect(cached.body.isEmpty)
        let listed = try await http.get(url, headers: ["If-None-Match": "\"other\", W/\"\(sha)\""])
        #expect(listed.status == 304)
        let stale = try await http.get(url, headers: ["If-None-Match": "\"other\""])
        #expect(stale.status == 200)
    }

    @Test func byteRanges() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full2)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("v1/files/shop-2.0.0.zip")
        let bytes = try Data(contentsOf: fixture.full2)
        let size = bytes.count

        let middle = try await http.get(url, headers: ["Range": "bytes=10-99"])
        #expect(middle.status == 206)
        #expect(middle.header("Content-Range") == "bytes 10-99/\(size)")
        #expect(middle.body == bytes[10...99])

        let open = try await http.get(url, headers: ["Range": "bytes=\(size - 5)-"])
        #expect(open.status == 206)
        #expect(open.header("Content-Range") == "bytes \(size - 5)-\(size - 1)/\(size)")
        #expect(open.body == bytes.suffix(5))

        let suffix = try await http.get(url, headers: ["Range": "bytes=-7"])
        #expect(suffix.status == 206)
        #expect(suffix.body == bytes.suffix(7))

        let pastEnd = try await http.get(url, headers: ["Range": "bytes=10-\(size + 1000)"])
        #expect(pastEnd.status == 206)
        #expect(pastEnd.body == bytes[10...])

        let unsatisfiable = try await http.get(url, headers: ["Range": "bytes=\(size)-"])
        #expect(unsatisfiable.status == 416)
        #expect(unsatisfiable.header("Content-Range") == "bytes */\(size)")

        let emptySuffix = try await http.get(url, headers: ["Range": "bytes=-0"])
        #expect(emptySuffix.status == 416)

        // Malformed ranges (end before start, other units) are ignored: the whole file, as RFC 9110 allows.
        let backwards = try await http.get(url, headers: ["Range": "bytes=9-2"])
        #expect(backwards.status == 200)
        let otherUnit = try await http.get(url, headers: ["Range": "items=0-1"])
        #expect(otherUnit.status == 200)

        // Several ranges are answered with the whole file, which RFC 9110 allows.
        let multiple = try await http.get(url, headers: ["Range": "bytes=0-1,5-6"])
        #expect(multiple.status == 200)
        #expect(multiple.body == bytes)
    }
}
