import Foundation

/// Decides whether a page that gave no signal is blank: its title vanished, or its body shows nothing.
public enum BlankPageProbe {
    /// Cheap: reads two properties, walks nothing. `true` when the body has elements or visible text.
    public static let script =
        "(function(){var b=document.body;return JSON.stringify({t:document.title,"
        + "c:!!(b&&(b.childElementCount>0||(b.innerText||'').trim().length>0))})})()"

    public struct Report: Sendable, Equatable, Decodable {
        public var title: String
        public var hasContent: Bool

        public init(title: String, hasContent: Bool) {
            self.title = title
            self.hasContent = hasContent
        }

        enum CodingKeys: String, CodingKey {
            case title = "t"
            case hasContent = "c"
        }
    }

    /// Parses what ``script`` returned (the engine's JSON of the string it built).
    public static func report(fromEvaluationResult json: String?) -> Report? {
        guard let json, let data = json.data(using: .utf8),
            let inner = try? JSONDecoder().decode(String.self, from: data)
        else { return nil }
        return try? JSONDecoder().decode(Report.self, from: Data(inner.utf8))
    }

    /// Why the page is blank, or nil when it looks alive.
    /// - Parameters:
    ///   - engineTitle: the title the engine reports now.
    ///   - expectedTitle: the title the page had when its load finished (empty or nil: it had none).
    ///   - probe: the probe's report; nil when the probe could not run (a dead document cannot answer).
    ///   - probed: whether the probe was attempted.
    ///   - policy: which signs of a blank page count.
    public static func verdict(
        engineTitle: String?, expectedTitle: String?, probe: Report?, probed: Bool, policy: RecoveryPolicy
    ) -> String? {
        let expected = expectedTitle ?? ""
        if policy.checksTitle, !expected.isEmpty, (engineTitle ?? "").isEmpty {
            return "title '\(expected)' is gone"
        }
        guard policy.probesBody, probed else { return nil }
        guard let probe else { return "the page did not answer the probe" }
        if !probe.hasContent { return "the body shows nothing" }
        return nil
    }
}
