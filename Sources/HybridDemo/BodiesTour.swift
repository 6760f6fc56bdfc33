#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import HybridKitGTK
import HybridNetwork
import HybridTestServers

/// The request-body part of the demo: the conformance suite in one engine, summarised as one line per body type
/// and one for XHR/fetch semantics next to the unhooked engine's.
@GTKActor
enum BodiesTour {
    static func run() async throws -> [TourLine] {
        // The native proxy may reach only the loopback echo server (loopback is refused unless configured).
        let proxy = NativeProxy(
            policy: ProxyPolicy(
                allowedHosts: ["127.0.0.1", "localhost"], allowedAddressKinds: [.loopback],
                maxRequestBodyBytes: 64 << 20))
        let lab = try await BodiesLab(proxy: proxy)
        defer { lab.close() }
        let rows = try await BodiesConformance.run(in: lab)
        var lines: [TourLine] = []
        for body in BodiesConformance.bodies {
            let cases = rows.filter { $0.kind == "body" && $0.name == body }
            let failed = cases.filter { $0.verdict == .fail }
            let skipped = cases.filter { $0.verdict == .skipped }
            // A pass with a note (say, the type the server saw where the page sent none) says so.
            let notes = Set(cases.filter { $0.passed && !$0.note.isEmpty }.map(\.note)).sorted()
            lines.append(
                TourLine(
                    name: "request body: \(body)", passed: cases.contains(where: \.passed) && failed.isEmpty,
                    detail: failed.isEmpty
                        ? "XHR and fetch, body by id and full proxy: the server got the exact bytes"
                            + (notes.isEmpty ? " and type" : "; " + notes.joined(separator: "; "))
                            + (skipped.isEmpty
                                ? "" : "; skipped: " + skipped.map(\.description).joined(separator: "; "))
                        : failed.map(\.description).joined(separator: "; ")))
        }
        let scenarios = rows.filter { $0.kind != "body" }
        let unexplained = BodiesConformance.unexplainedFailures(scenarios)
        let known = scenarios.filter { $0.verdict == .fail && BodiesConformance.knownLimitation(of: $0) != nil }
        var detail = "\(BodiesConformance.summary(scenarios)) cases against the unhooked engine"
        detail += " (abort, timeout, responseType, status, streams, credentials, redirects)"
        if !known.isEmpty {
            detail +=
                "; known differences: " + known.map { "\($0.name) \($0.api) \($0.strategy)" }.joined(separator: ", ")
        }
        if !unexplained.isEmpty { detail += "; FAILED: " + unexplained.map(\.description).joined(separator: "; ") }
        lines.append(
            TourLine(
                name: "XHR/fetch semantics under the hooks",
                passed: unexplained.isEmpty && scenarios.contains(where: \.passed), detail: detail))
        lines.append(try await channelLine(proxy: proxy))
        return lines
    }

    /// The same suite with the body channel: the engine's network process sends the bodies to a loopback listener.
    static func channelLine(proxy: NativeProxy) async throws -> TourLine {
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        let lab = try await BodiesLab(proxy: proxy, bodyChannel: channel)
        defer { lab.close() }
        let rows = try await BodiesConformance.run(in: lab)
        let failed = BodiesConformance.unexplainedFailures(rows)
        let uploads = channel.routes.uploadsOpened
        return TourLine(
            name: "request bodies over the body channel", passed: failed.isEmpty && uploads > 0,
            detail: failed.isEmpty
                ? "\(BodiesConformance.summary(rows)) cases as without it; \(uploads) bodies streamed by the "
                    + "engine to 127.0.0.1:\(channel.port)"
                : "FAILED: " + failed.map(\.description).joined(separator: "; "))
    }
}
#endif
