import Foundation
import HybridPackages
import HybridTestSupport
import HybridUpdateServer
import Testing

/// RFC 9110 §13 preconditions on `/v1/files/<name>`, and `HEAD` on every `GET` route.
@Suite("Update server: preconditions and HEAD")
struct ConditionalRequestTests {
    let http = RawHTTP()

    /// A resumed download whose file changed underneath must get the whole new file, never new bytes spliced
    /// onto old ones.
    @Test func ifRangeWithAStaleValidatorSendsTheWholeNewFile() async throws {
        let fixture = try ServerFixture()
        let served = fixture.served.appendingPathComponent("shop.zip")
        try FileManager.default.copyItem(at: fixture.full1, to: served)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("v1/files/shop.zip")
        let old = try #require(try await http.get(url).header("ETag"))

        try FileManager.default.removeItem(at: served)
        try FileManager.default.copyItem(at: fixture.full2, to: served)
        let bytes = try Data(contentsOf: fixture.full2)
        let current = "\"\(try ServerFixture.sha256(fixture.full2))\""

        let stale = try await http.get(url, headers: ["Range": "bytes=10-99", "If-Range": old])
        #expect(stale.status == 200)
        #expect(stale.header("ETag") == current)
        #expect(stale.header("Content-Range") == nil)
        #expect(stale.body == bytes)

        let fresh = try await http.get(url, headers: ["Range": "bytes=10-99", "If-Range": current])
        #expect(fresh.status == 206)
        #expect(fresh.header("Content-Range") == "bytes 10-99/\(bytes.count)")
        #expect(fresh.body == bytes[10...99])

        // If-Range uses the strong comparison: a weak tag never matches, even with the right opaque value.
        let weak = try await http.get(url, headers: ["Range": "bytes=10-99", "If-Range": "W/\(current)"])
        #expect(weak.status == 200)
        #expect(weak.body == bytes)

        // We send no Last-Modified (a file's time is no proof of its bytes), so a date never validates a range.
        let date = try await http.get(
            url, headers: ["Range": "bytes=10-99", "If-Range": "Wed, 21 Oct 2099 07:28:00 GMT"])
        #expect(date.status == 200)
        #expect(date.body == bytes)
        #expect(date.header("Last-Modified") == nil)

        let garbage = try await http.get(url, headers: ["Range": "bytes=10-99", "If-Range": "nonsense"])
        #expect(garbage.status == 200)
    }

    @Test func ifMatchFailsWith412AndComesFirst() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("v1/files/shop-1.0.0.zip")
        let current = "\"\(try ServerFixture.sha256(fixture.full1))\""

        let other = try await http.get(url, headers: ["If-Match": "\"other\""])
        #expect(other.status == 412)
        #expect(other.body.isEmpty)
        #expect(try await http.get(url, headers: ["If-Match": "\"other\""], method: "HEAD").status == 412)
        // If-Match uses the strong comparison.
        #expect(try await http.get(url, headers: ["If-Match": "W/\(current)"]).status == 412)
        #expect(try await http.get(url, headers: ["If-Match": "*"]).status == 200)
        #expect(try await http.get(url, headers: ["If-Match": "\"a\", \(current)"]).status == 200)
        let ranged = try await http.get(url, headers: ["If-Match": current, "Range": "bytes=0-9"])
        #expect(ranged.status == 206)
        #expect(ranged.body.count == 10)

        // RFC 9110 §13.2.2: If-Match is evaluated before If-None-Match.
        let both = try await http.get(url, headers: ["If-Match": "\"other\"", "If-None-Match": current])
        #expect(both.status == 412)
        let passed = try await http.get(url, headers: ["If-Match": current, "If-None-Match": current])
        #expect(passed.status == 304)
        // A failed If-Match wins over a Range too.
        let rangedOther = try await http.get(url, headers: ["If-Match": "\"other\"", "Range": "bytes=0-9"])
        #expect(rangedOther.status == 412)
    }

    @Test func ifNoneMatchIsWeakAndStarMatches() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("v1/files/shop-1.0.0.zip")
        let current = "\"\(try ServerFixture.sha256(fixture.full1))\""

        let star = try await http.get(url, headers: ["If-None-Match": "*"])
        #expect(star.status == 304)
        #expect(star.header("ETag") == current)
        #expect(try await http.get(url, headers: ["If-None-Match": "W/\(current)"]).status == 304)
        #expect(try await http.get(url, headers: ["If-None-Match": current], method: "HEAD").status == 304)
        // 304 comes before Range.
        #expect(try await http.get(url, headers: ["If-None-Match": current, "Range": "bytes=0-1"]).status == 304)
        #expect(try await http.get(url, headers: ["If-None-Match": "\"x\", \"y\""]).status == 200)
    }

    /// HEAD gives exactly GET's status and headers (Content-Length included) and no body, on every GET route.
    @Test(arguments: [
        ("/v1/packages/com.example.shop/latest", [String]()),
        ("/v1/packages/com.unknown/latest", []),
        ("/v1/files/shop-1.0.0.zip", []),
        ("/v1/files/shop-1.0.0.zip", ["Range: bytes=10-99"]),
        ("/v1/files/shop-1.0.0.zip", ["Range: bytes=999999-"]),
        ("/v1/files/shop-1.0.0.zip", ["If-None-Match: *"]),
        ("/v1/files/nope.zip", []),
    ])
    func headMatchesGet(path: String, extra: [String]) async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer()
        defer { server.stop() }
        func request(_ method: String) async throws -> RawSocket.Response {
            let lines = ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1", "Connection: close"] + extra
            let exchange = try await RawSocket.send(lines.joined(separator: "\r\n") + "\r\n\r\n", port: server.port)
            #expect(exchange.closedByServer)
            return try #require(exchange.response)
        }
        let get = try await request("GET")
        let head = try await request("HEAD")
        #expect(head.status == get.status)
        #expect(head.body.isEmpty)
        for name in ["Content-Length", "Content-Type", "ETag", "Accept-Ranges", "Content-Range"] {
            #expect(head.header(name) == get.header(name), "\(name) on HEAD \(path) \(extra)")
        }
        if get.status == 304 {
            // RFC 9110 §8.6: a 304's Content-Length could only be the full size; 0 would be wrong.
            #expect(get.header("Content-Length") == nil)
        } else {
            #expect(get.header("Content-Length") == "\(get.body.count)")
        }
    }
}
