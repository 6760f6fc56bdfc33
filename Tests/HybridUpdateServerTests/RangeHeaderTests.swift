import Foundation
import Testing

/// `hybrid serve` answers only RFC 9110 byte ranges with 206: a sign or a space inside a number is not a range,
/// so the whole file comes back with 200, and a number past Int64 does not bring the server down.
@Suite("Update server Range headers")
struct RangeHeaderTests {
    let http = RawHTTP()

    @Test func malformedNumbersGetTheWholeFile() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full2)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("v1/files/shop-2.0.0.zip")
        let bytes = try Data(contentsOf: fixture.full2)

        for header in ["bytes=+5-10", "bytes=5-+10", "bytes=-+5", "bytes=1 0-20"] {
            let answer = try await http.get(url, headers: ["Range": header])
            #expect(answer.status == 200, "\(header)")
            #expect(answer.header("Content-Range") == nil, "\(header)")
            #expect(answer.body == bytes, "\(header)")
        }

        let huge = try await http.get(url, headers: ["Range": "bytes=99999999999999999999-"])
        #expect(huge.status == 416)
        #expect(huge.header("Content-Range") == "bytes */\(bytes.count)")

        // Still answering, and still honouring a well-formed range.
        let range = try await http.get(url, headers: ["Range": "bytes=5-10"])
        #expect(range.status == 206)
        #expect(range.body == bytes[5...10])
    }
}
