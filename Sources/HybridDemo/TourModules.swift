#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK

/// The native modules the demo pages call.
enum TourModules {
    struct Operands: Codable, Sendable { let a: Int; let b: Int }
    struct Milliseconds: Codable, Sendable { let ms: Int }
    struct Count: Codable, Sendable { let count: Int }
    struct Title: Codable, Sendable { let title: String }
    struct Ask: Codable, Sendable { let handler: String; let data: JSONValue }
    struct Report: Codable, Sendable { let name: String; let ok: Bool; let detail: String }
    struct Config: Codable, Sendable { let crossOrigin: String }
    struct Greeting: Codable, Sendable { let greeting: String }
    struct Name: Codable, Sendable { let name: String }
    struct Tick: Codable, Sendable { let n: Int }
    struct Caller: Codable, Sendable { let origin: String; let verified: Bool; let mainFrame: Bool }
    struct PageTitle: PageContextKey { typealias Value = String }
    struct LastTickBatch: PageContextKey { typealias Value = TickBatch }

    /// How the bridge delivered the events of one `emitTicks` call with its result, counted natively from
    /// ``BridgeEngine/stats``: batched means every event and the result left in one evaluation.
    struct TickBatch: Codable, Sendable, Equatable {
        let emitted: Int
        /// Events the bridge counted, from the call until its answer had left.
        let events: Int
        /// Evaluations the bridge made in that time.
        let evaluations: Int
        let batched: Bool
        let detail: String

        init(emitted: Int, events: Int, evaluations: Int) {
            self.emitted = emitted
            self.events = events
            self.evaluations = evaluations
            batched = events == emitted && evaluations == 1
            let counted =
                "\(events) event\(events == 1 ? "" : "s") and the result in \(evaluations) evaluation"
                + (evaluations == 1 ? "" : "s")
            detail = batched ? "\(counted) (counted natively)" : "not batched: \(counted), \(emitted) emitted"
        }

        init(emitted: Int, before: BridgeStatistics, after: BridgeStatistics) {
            self.init(
                emitted: emitted, events: after.events - before.events,
                evaluations: after.evaluations - before.evaluations)
        }
    }
    struct DemoFailure: Error {}

    static let pageOrigin = "app://demo"

    static func make(crossOrigin: String, recorder: TourRecorder) -> [BridgeModule] {
        [
            BridgeModule("tour", access: .origins(pageOrigin)) { module in
                module.method("report") { (report: Report, _) in
                    recorder.record(TourLine(name: report.name, passed: report.ok, detail: report.detail))
                    return true
                }
                module.method("done") { (end: TourEnd, _) in
                    recorder.finish(end)
                    return true
                }
            },
            BridgeModule("demo", access: .origins(pageOrigin, crossOrigin, allowsSubframes: true)) { module in
                module.method("config") { (_: NoArguments, _) in Config(crossOrigin: crossOrigin) }
                module.method("add") { (operands: Operands, _) in operands.a + operands.b }
                module.method("whoami") { (_: NoArguments, call) in
                    Caller(origin: call.origin, verified: call.originVerified, mainFrame: call.isMainFrame)
                }
                module.method("echo") { (value: JSONValue, _) in value }
                module.method("fail") { (_: NoArguments, _) -> Int in throw DemoFailure() }
                module.method("slowNative", timeout: .milliseconds(200)) { (wait: Milliseconds, _) async throws in
                    try await Task.sleep(for: .milliseconds(wait.ms))
                    return wait.ms
                }
                module.method("sleep") { (wait: Milliseconds, _) async throws in
                    try await Task.sleep(for: .milliseconds(wait.ms))
                    return wait.ms
                }
                module.forward("legacyAdd", to: "math", method: "add")
                module.method("setTitle") { (title: Title, call) in
                    call.page[PageTitle.self] = title.title
                    return true
                }
                module.method("emitTicks") { (count: Count, call) in
                    guard let bridge = call.bridge else { throw BridgeError(.closed, "no bridge") }
                    // A sync method runs on the bridge's executor: the events it emits and its own result
                    // leave in the same batch, at the end of this job. The bridge's counters say whether they
                    // did: read them before, and again in the next job on that executor.
                    let before = try EngineActor.assumeIsolated {
                        let before = bridge.stats
                        for n in 0..<count.count { try bridge.emit("tick", Tick(n: n)) }
                        return before
                    }
                    let page = call.page
                    // The bridge's executor is GTK's main loop: a task isolated to it starts there (not on the
                    // global pool), in the first job after this one — the one whose end sends the batch.
                    // (Explicitly urgent: a task made outside any task may land in the loop's background lane.)
                    Task(priority: .userInitiated) { @GTKActor in
                        let after = bridge.stats
                        page[LastTickBatch.self] = TickBatch(emitted: count.count, before: before, after: after)
                    }
                    return count.count
                }
                module.method("tickBatch") { (_: NoArguments, call) async throws in
                    // Counted long before the page can ask (it asks once the events have reached it); wait
                    // a little all the same rather than answer without the counts.
                    let page = call.page
                    _ = await TourWait.until(timeout: .seconds(5)) { page[LastTickBatch.self] != nil }
                    guard let batch = page[LastTickBatch.self] else {
                        throw BridgeError(.internalError, "no emitTicks call has been counted yet")
                    }
                    return batch
                }
                module.method("askPage") { (ask: Ask, call) async throws -> JSONValue in
                    guard let bridge = call.bridge else { throw BridgeError(.closed, "no bridge") }
                    return try await bridge.callJavaScript(ask.handler, ask.data)
                }
            },
            BridgeModule("math", access: .origins(pageOrigin)) { module in
                module.method("add") { (operands: Operands, _) in operands.a + operands.b }
                module.method("pageTitle") { (_: NoArguments, call) in call.page[PageTitle.self] ?? "" }
            },
            BridgeModule("partner", access: .origins("https://partner.example")) { module in
                module.method("info") { (_: NoArguments, _) in "partner only" }
            },
            BridgeModule("secret", access: .origins(pageOrigin, crossOrigin)) { module in
                module.method("token") { (_: NoArguments, _) in "main frame only" }
            },
            BridgeModule("wvjb", access: .origins(pageOrigin)) { module in
                module.method("greet") { (name: Name, _) in Greeting(greeting: "Hello, \(name.name)") }
            },
        ]
    }
}
#endif
