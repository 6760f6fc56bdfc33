#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK

/// Runs every request-body case through XHR and fetch, hooked (body by id, full proxy) and unhooked in the same
/// engine, and judges each hooked run against what the server must see and against the unhooked engine.
@GTKActor
public enum BodiesConformance {
    public struct Row: Sendable, CustomStringConvertible {
        /// A case the page could not run here (`skipped`) is neither a pass nor a failure: it is counted apart.
        public enum Verdict: String, Sendable {
            case pass, fail, skipped
        }

        public let kind: String
        public let name: String
        public let api: String
        public let strategy: String
        public let verdict: Verdict
        /// Why it failed or was skipped, or what the unhooked engine could not do.
        public let note: String

        public var passed: Bool { verdict == .pass }

        public var description: String {
            "\(kind) \(name) \(api) \(strategy): \(verdict == .fail ? "FAIL" : verdict.rawValue) \(note)"
        }
    }

    public static let bodies = [
        "none", "string", "urlsearchparams", "formdata_text", "formdata_files", "blob", "blob_untyped", "file",
        "arraybuffer", "typedarray", "dataview", "readablestream", "request",
    ]
    public static let scenarios: [(name: String, apis: [String])] = [
        ("abort", ["xhr", "fetch"]), ("timeout", ["xhr", "fetch"]), ("json", ["xhr"]), ("arraybuffer", ["xhr"]),
        ("blobResponse", ["xhr"]), ("document", ["xhr"]), ("redirect307", ["xhr", "fetch"]),
        ("redirect303", ["xhr", "fetch"]), ("redirect302", ["xhr", "fetch"]), ("redirect308", ["xhr", "fetch"]),
        ("redirectManual", ["fetch"]), ("redirectError", ["fetch"]), ("status404", ["xhr", "fetch"]),
        ("stream", ["fetch"]),
        ("sync", ["xhr"]), ("syncString", ["xhr"]), ("credentials", ["xhr", "fetch"]),
        ("authorType", ["xhr", "fetch"]), ("edges", ["xhr", "fetch"]),
    ]

    /// Differences that come from below the hooks, each with its reason. A row listed here that passes is fine.
    /// None today: redirects under body by id (final URL, 307 bodies, manual and error modes), the Content-Type
    /// of untyped bodies and the upload progress of re-sent bodies all match the engine.
    public static let knownLimitations: [(name: String, strategies: [String], why: String)] = []

    /// The rows that failed for no known reason (known limitations are printed, not returned).
    public static func unexplainedFailures(_ rows: [Row]) -> [Row] {
        rows.filter { row in
            guard row.verdict == .fail else { return false }
            guard let why = knownLimitation(of: row) else { return true }
            print("known limitation: \(row.name) \(row.api) \(row.strategy): \(why)")
            return false
        }
    }

    /// The known limitation `row` falls under, if any.
    public static func knownLimitation(of row: Row) -> String? {
        knownLimitations.first { row.name == $0.name && $0.strategies.contains(row.strategy) }?.why
    }

    /// Runs everything; `strategies` picks the hooked sides (full proxy needs the lab's proxy).
    public static func run(
        in lab: BodiesLab, strategies: [BodiesLab.Side] = [.bodyByID, .fullProxy],
        progress: ((Row) -> Void)? = nil
    ) async throws -> [Row] {
        var baseline: [String: JSONValue] = [:]
        try await lab.load(lab.pageURL(.unhooked))
        for (kind, name, api) in cases() {
            baseline["\(kind) \(name) \(api)"] = try await lab.conformanceCase(kind: kind, name: name, api: api)
        }
        var rows: [Row] = []
        for side in strategies {
            try await lab.load(lab.pageURL(side))
            for (kind, name, api) in cases() {
                let hooked = try await lab.conformanceCase(kind: kind, name: name, api: api)
                let base = baseline["\(kind) \(name) \(api)"] ?? .null
                let row = judge(kind: kind, name: name, api: api, side: side, hooked: hooked, baseline: base)
                progress?(row)
                rows.append(row)
            }
        }
        return rows
    }

    static func cases() -> [(String, String, String)] {
        var all: [(String, String, String)] = []
        for body in bodies { for api in ["xhr", "fetch"] { all.append(("body", body, api)) } }
        for (name, apis) in scenarios { for api in apis { all.append(("scenario", name, api)) } }
        return all
    }

    static func judge(
        kind: String, name: String, api: String, side: BodiesLab.Side, hooked: JSONValue,
        baseline: JSONValue
    ) -> Row {
        var problems: [String] = []
        var notes: [String] = []
        if case .string(let why)? = hooked["skipped"] {
            return Row(kind: kind, name: name, api: api, strategy: side.rawValue, verdict: .skipped, note: why)
        }
        if let error = hooked["harnessError"] ?? hooked["labError"] { problems.append("harness: \(show(error))") }
        // Without the engine's own run there is nothing to compare with: the row cannot pass.
        if let error = baseline["harnessError"] ?? baseline["labError"] {
            problems.append("the unhooked baseline failed (\(show(error))): nothing to compare with")
        } else if baseline == .null {
            problems.append("the unhooked baseline did not run")
        }
        // Synchronous XHR may fail instead of working, with an error that says why (the issue allows both).
        if name == "sync", case .string(let thrown)? = hooked["thrown"], thrown.hasPrefix("InvalidAccessError"),
            thrown.contains("synchronous")
        {
            return Row(
                kind: kind, name: name, api: api, strategy: side.rawValue, verdict: .pass,
                note: "fails with a clear error: \(thrown)")
        }
        let baselineWorked = baseline["thrown"] == nil && baseline["harnessError"] == nil
        if kind == "body" {
            judgeBody(hooked: hooked, baseline: baseline, baselineWorked: baselineWorked, &problems, &notes)
        } else {
            judgeScenario(name: name, hooked: hooked, baseline: baseline, &problems, &notes)
        }
        for field in ["status", "statusText", "echoHeader", "internalHeaders", "readyState"]
        where baselineWorked && hooked[field] != baseline[field] {
            problems.append("\(field) \(show(hooked[field])) vs engine \(show(baseline[field]))")
        }
        if api == "xhr", baselineWorked, hooked["events"] != baseline["events"] {
            problems.append("events \(show(hooked["events"])) vs engine \(show(baseline["events"]))")
        }
        if hooked["internalHeaders"] == .bool(true) { problems.append("x-hybrid-* headers visible to the page") }
        let note = (problems + notes).joined(separator: "; ")
        return Row(
            kind: kind, name: name, api: api, strategy: side.rawValue, verdict: problems.isEmpty ? .pass : .fail,
            note: note)
    }

    static func judgeBody(
        hooked: JSONValue, baseline: JSONValue, baselineWorked: Bool, _ problems: inout [String],
        _ notes: inout [String]
    ) {
        if let thrown = hooked["thrown"] { return problems.append("threw \(show(thrown))") }
        guard let echo = hooked["echo"] else { return problems.append("no echo: \(show(hooked))") }
        let expected = hooked["expectedSHA"]
        if let expected, expected != .null, echo["sha256"] != expected {
            problems.append("server saw sha \(show(echo["sha256"])), page sent \(show(expected))")
        }
        guard baselineWorked, let engineEcho = baseline["echo"] else {
            return notes.append("unhooked engine cannot send it (\(show(baseline["thrown"] ?? baseline)))")
        }
        for field in ["method", "length", "testHeader"] where echo[field] != engineEcho[field] {
            problems.append("\(field) \(show(echo[field])) vs engine \(show(engineEcho[field]))")
        }
        if engineEcho["parts"] != nil, engineEcho["parts"] != .null {
            if echo["parts"] != engineEcho["parts"] { problems.append("multipart parts differ from the engine's") }
            let prefix = "multipart/form-data; boundary="
            if case .string(let type)? = echo["contentType"], type.hasPrefix(prefix) {
            } else {
                problems.append("Content-Type \(show(echo["contentType"])) is not multipart with a boundary")
            }
        } else {
            if echo["contentType"] != engineEcho["contentType"] {
                problems.append(
                    "Content-Type \(show(echo["contentType"])) vs engine \(show(engineEcho["contentType"]))")
            }
            if echo["sha256"] != engineEcho["sha256"] { problems.append("bytes differ from the engine's") }
        }
    }

    static func judgeScenario(
        name: String, hooked: JSONValue, baseline: JSONValue, _ problems: inout [String], _ notes: inout [String]
    ) {
        for field in ["thrown", "response", "redirected", "type"] where hooked[field] != baseline[field] {
            problems.append(differences(field, hooked[field], baseline[field]))
        }
        for field in ["method", "sha256", "length", "contentType", "query"]
        where hooked["echo"]?[field] != baseline["echo"]?[field] {
            problems.append("echo.\(field) \(show(hooked["echo"]?[field])) vs engine \(show(baseline["echo"]?[field]))")
        }
        // The page's own origin differs (hybrid:// vs http://): compare what follows it.
        for field in ["responseURL", "url"] where path(hooked[field]) != path(baseline[field]) {
            problems.append("\(field) \(show(hooked[field])) vs engine \(show(baseline[field]))")
        }
    }

    /// `field` as each side read it; for the edges' probe lists ("probe: outcome | …"), only the probes that differ.
    static func differences(_ field: String, _ hooked: JSONValue?, _ engine: JSONValue?) -> String {
        guard case .string(let mine)? = hooked, case .string(let theirs)? = engine, mine.contains(" | ") else {
            return "\(field) \(show(hooked)) vs engine \(show(engine))"
        }
        let left = mine.components(separatedBy: " | ")
        let right = theirs.components(separatedBy: " | ")
        var differing: [String] = []
        for index in 0..<max(left.count, right.count) {
            let one = index < left.count ? left[index] : "(missing)"
            let other = index < right.count ? right[index] : "(missing)"
            if one != other { differing.append("\(one) vs engine \(other)") }
        }
        return "\(field): " + differing.joined(separator: "; ")
    }

    static func path(_ value: JSONValue?) -> String? {
        guard case .string(let text)? = value, let url = URL(string: text) else { return nil }
        return url.path + (url.query.map { "?" + $0 } ?? "")
    }

    static func show(_ value: JSONValue?) -> String {
        guard let value else { return "nil" }
        let data = (try? JSONEncoder().encode(value)) ?? Data()
        let text = String(decoding: data, as: UTF8.self)
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }

    /// The pass table: one line per case and API, one column per strategy.
    public static func table(_ rows: [Row]) -> String {
        let strategies = rows.reduce(into: [String]()) { if !$0.contains($1.strategy) { $0.append($1.strategy) } }
        var keys: [String] = []
        var cells: [String: String] = [:]
        var notes: [String] = []
        for row in rows {
            let key = "\(row.kind == "body" ? "body" : "scen") \(row.name) \(row.api)"
            if !keys.contains(key) { keys.append(key) }
            cells[key + "|" + row.strategy] =
                switch row.verdict {
                case .pass: row.note.isEmpty ? "pass" : "pass*"
                case .skipped: "skipped*"
                case .fail: "FAIL"
                }
            if !row.note.isEmpty { notes.append("\(key) [\(row.strategy)]: \(row.note)") }
        }
        let header = ["case", "api"] + strategies
        let lines = keys.map { key -> [String] in
            let parts = key.split(separator: " ").map(String.init)
            return ["\(parts[0]) \(parts[1])", parts[2]] + strategies.map { cells[key + "|" + $0] ?? "-" }
        }
        let widths = header.indices.map { column in ([header] + lines).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }
        return
            ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + lines.map(line)
            + ["", summary(rows), "notes (* and FAIL):"] + notes.map { "  " + $0 })
            .joined(separator: "\n")
    }

    /// "N passed, N skipped, N failed of N": a skipped case is never counted as a pass.
    public static func summary(_ rows: [Row]) -> String {
        let count = { (verdict: Row.Verdict) in rows.filter { $0.verdict == verdict }.count }
        return "\(count(.pass)) passed, \(count(.skipped)) skipped, \(count(.fail)) failed of \(rows.count)"
    }
}
#endif
