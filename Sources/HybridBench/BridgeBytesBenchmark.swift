#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestServers

/// The binary figures of `hybrid bench bridge`: bytes through the bridge against the engine moving the same
/// bytes with nothing of HybridKit in the way, in the same page, alternated in blocks.
///
/// - A `Data` result to the page (`hybrid.call` answering with bytes, read as an `ArrayBuffer`) against the page's
///   `fetch` of the same bytes from a custom-scheme handler that answers from memory.
/// - An `ArrayBuffer` argument to native (`hybrid.call` with the bytes, answered with their count) against an
///   unhooked `fetch` POST of the same bytes to a loopback HTTP server that only counts them.
/// - The host's heap at its peak above where each binary phase started (``HeapPeakSampler``), against the payload.
enum BridgeBytesBenchmark {
    /// Serves the same bytes the bridge answers with, from memory, to any origin.
    final class BytesHandler: SchemeHandler {
        let payload: Data
        init(payload: Data) { self.payload = payload }
        func start(_ task: any SchemeTask) {
            task.respond(
                status: 200,
                headers: ["Access-Control-Allow-Origin": "*", "Content-Type": "application/octet-stream"],
                body: payload)
        }
        func stop(_ task: any SchemeTask) {}
    }

    static let scheme = "benchbytes"

    struct Phases {
        /// Runs one phase of `count` operations and returns its native duration.
        let run: @GTKActor (_ kind: String, _ size: Int, _ count: Int) async throws -> Duration
    }

    enum Failure: Error, CustomStringConvertible {
        case zeroBaseline(String)
        case noMemoryReading(String)
        var description: String {
            switch self {
            case .zeroBaseline(let figure): "the baseline of '\(figure)' read 0: the run measured nothing"
            case .noMemoryReading(let figure): "the heap reading of '\(figure)' failed (0 bytes above idle)"
            }
        }
    }

    @GTKActor
    static func figures(size: Int, rounds: Int, blocks: Int, phases: Phases) async throws -> [BenchFigure] {
        // Warm both sides up (the first fetch of a scheme, the first binary call).
        for kind in ["bytes-fetch", "bytes-result", "bytes-post", "bytes-argument"] {
            _ = try await phases.run(kind, size, 1)
        }
        var fetches: [Double] = []
        var results: [Double] = []
        var posts: [Double] = []
        var arguments: [Double] = []
        var resultHeap = 0
        var argumentHeap = 0
        for block in 0..<max(1, blocks) {
            // Who goes first swaps each block.
            let order = block.isMultiple(of: 2) ? [0, 1] : [1, 0]
            for side in order {
                if side == 0 {
                    fetches.append(per(try await phases.run("bytes-fetch", size, rounds), rounds))
                    let heap = HeapPeakSampler()
                    results.append(per(try await phases.run("bytes-result", size, rounds), rounds))
                    resultHeap = max(resultHeap, heap.stop())
                } else {
                    posts.append(per(try await phases.run("bytes-post", size, rounds), rounds))
                    let heap = HeapPeakSampler()
                    arguments.append(per(try await phases.run("bytes-argument", size, rounds), rounds))
                    argumentHeap = max(argumentHeap, heap.stop())
                }
            }
        }
        let label = "\(size >> 20) MB"
        let figures = [
            BenchFigure(
                scenario: "bridge", figure: "binary result to the page, \(label)",
                value: BridgeBenchmark.percentile(results, 0.5),
                unit: "ms", baselineName: "page fetch from a scheme handler",
                baseline: BridgeBenchmark.percentile(fetches, 0.5),
                better: .lower, targetRatio: 1.2),
            BenchFigure(
                scenario: "bridge", figure: "binary argument to native, \(label)",
                value: BridgeBenchmark.percentile(arguments, 0.5), unit: "ms",
                baselineName: "unhooked POST to a loopback server", baseline: BridgeBenchmark.percentile(posts, 0.5),
                better: .lower, targetRatio: 1.2),
            BenchFigure(
                scenario: "bridge", figure: "binary result, host heap peak above idle", value: Double(resultHeap) / 1e6,
                unit: "MB", baselineName: "payload", baseline: Double(size) / 1e6, better: .lower, targetRatio: 2),
            BenchFigure(
                scenario: "bridge", figure: "binary argument, host heap peak above idle",
                value: Double(argumentHeap) / 1e6, unit: "MB", baselineName: "payload", baseline: Double(size) / 1e6,
                better: .lower, targetRatio: 2),
        ]
        for figure in figures where figure.baseline <= 0 { throw Failure.zeroBaseline(figure.figure) }
        if resultHeap <= 0 { throw Failure.noMemoryReading(figures[2].figure) }
        if argumentHeap <= 0 { throw Failure.noMemoryReading(figures[3].figure) }
        return figures
    }

    /// Milliseconds per operation.
    static func per(_ duration: Duration, _ count: Int) -> Double {
        BridgeBenchmark.microseconds(duration) / 1000 / Double(max(1, count))
    }
}
#endif
