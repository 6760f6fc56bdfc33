import HybridPackages
import Testing

/// `ByteRangeRequest` answers `Range` headers from any client of `hybrid serve` and from any page's requests to the
/// package scheme: only RFC 9110's `bytes=<digits>-<digits>` forms may become a range, and no header may trap.
@Suite("Byte range request")
struct ByteRangeRequestTests {
    @Test func wellFormedRangesAreAnswered() {
        #expect(ByteRangeRequest(header: "bytes=5-10", size: 100) == .partial(5...10))
        #expect(ByteRangeRequest(header: "bytes=90-", size: 100) == .partial(90...99))
        #expect(ByteRangeRequest(header: "bytes=-7", size: 100) == .partial(93...99))
        #expect(ByteRangeRequest(header: "  BYTES=5-10\t", size: 100) == .partial(5...10))
        #expect(ByteRangeRequest(header: "bytes= 5 - 10 ", size: 100) == .partial(5...10))
        #expect(ByteRangeRequest(header: "bytes=100-", size: 100) == .unsatisfiable)
    }

    /// The bug: `Int64("+5")` is 5, so a sign made a range (206 instead of the whole file).
    @Test(arguments: ["bytes=+5-10", "bytes=5-+10", "bytes=-+5", "bytes=+0-", "bytes=-5-10", "bytes=5--10"])
    func signedBoundsAreIgnored(header: String) {
        #expect(ByteRangeRequest(header: header, size: 100) == .whole)
    }

    @Test(arguments: ["bytes=1 0-20", "bytes=10-2 0", "bytes=- 1 0", "bytes=0x10-20", "bytes=１-2", "bytes=٣-4"])
    func nonDigitsInsideNumbersAreIgnored(header: String) {
        #expect(ByteRangeRequest(header: header, size: 100) == .whole)
    }

    /// Numbers past Int64 are positions past any file, not traps and not garbage.
    @Test func hugeNumbersSaturate() {
        let huge = "99999999999999999999"
        #expect(ByteRangeRequest(header: "bytes=\(huge)-", size: 100) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=\(huge)-\(huge)", size: 100) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=10-\(huge)", size: 100) == .partial(10...99))
        #expect(ByteRangeRequest(header: "bytes=-\(huge)", size: 100) == .partial(0...99))
        #expect(ByteRangeRequest(header: "bytes=-\(huge)", size: .max) == .partial(0...(.max - 1)))
        #expect(
            ByteRangeRequest(header: "bytes=\(String(repeating: "9", count: 10_000))-", size: 100) == .unsatisfiable)
    }
}
