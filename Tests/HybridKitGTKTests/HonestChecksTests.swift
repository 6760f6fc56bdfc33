#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
@testable import HybridBench
import HybridKit
import HybridKitGTK
@testable import HybridTestServers
import Testing

/// The harness's own judges must not report what they did not see: a skipped case is not a pass, a case whose
/// unhooked baseline failed cannot pass, and a view that got no answer for the whole flood waited all of it.
@Suite struct HonestChecksTests {
    static let worked: JSONValue = [
        "status": 200, "echo": ["method": "POST", "length": 3, "sha256": "abc", "contentType": "text/plain"],
        "expectedSHA": "abc",
    ]

    @GTKActor @Test func aSkippedCaseIsCountedApartFromPasses() {
        let row = BodiesConformance.judge(
            kind: "body", name: "readablestream", api: "fetch", side: .bodyByID,
            hooked: ["skipped": "this engine cannot stream request bodies"], baseline: Self.worked)
        #expect(row.verdict == .skipped)
        #expect(!row.passed)
        #expect(BodiesConformance.unexplainedFailures([row]).isEmpty, "skipped is not a failure either")
        let pass = BodiesConformance.judge(
            kind: "body", name: "string", api: "fetch", side: .bodyByID, hooked: Self.worked, baseline: Self.worked)
        #expect(pass.verdict == .pass, "\(pass)")
        #expect(BodiesConformance.summary([row, pass]) == "1 passed, 1 skipped, 0 failed of 2")
    }

    @GTKActor @Test func aCaseWhoseBaselineFailedCannotPass() {
        for baseline: JSONValue in [["harnessError": "the page did not answer"], ["labError": "load failed"], .null] {
            let row = BodiesConformance.judge(
                kind: "body", name: "string", api: "xhr", side: .fullProxy, hooked: Self.worked, baseline: baseline)
            #expect(row.verdict == .fail, "\(row)")
            #expect(row.note.contains("baseline"), "\(row.note)")
        }
    }

    @Test func theFloodsLongestWaitCountsTheEdges() {
        let start = ContinuousClock.now
        let end = start + .seconds(2)
        // No answer during the whole flood: the wait was all of it, not zero.
        #expect(FloodBenchmark.longestGap([], from: start, to: end) == .seconds(2))
        // Answers only early on: the wait after the last one counts.
        let early = [start + .milliseconds(10), start + .milliseconds(20)]
        #expect(FloodBenchmark.longestGap(early, from: start, to: end) == .milliseconds(1980))
        // Answers only late: the wait before the first one counts.
        #expect(FloodBenchmark.longestGap([start + .milliseconds(1500)], from: start, to: end) == .milliseconds(1500))
        // Answers outside the window are not in it.
        let evenly = (0...20).map { start + .milliseconds(100 * $0) } + [end + .seconds(5)]
        #expect(FloodBenchmark.longestGap(evenly, from: start, to: end) == .milliseconds(100))
    }
}
#endif
