import Foundation
import HybridCore

/// The request hooks (Resources/js/hooks.js) with a config baked in, as a user script for every frame.
public enum RequestHooksScript {
    public enum ScriptError: Error, CustomStringConvertible {
        case missingResource
        public var description: String { "hooks.js is missing from the HybridInterception bundle" }
    }

    static let placeholder = "__HYBRID_REQUEST_CONFIG__"

    /// The hook source with `config` for pages on `schemes`.
    public static func source(
        config: InterceptionConfig, schemes: [String], switches: InterceptionSwitches
    ) throws -> String {
        guard let url = Bundle.module.url(forResource: "hooks", withExtension: "js", subdirectory: "js") else {
            throw ScriptError.missingResource
        }
        let template = try String(contentsOf: url, encoding: .utf8)
        return template.replacingOccurrences(of: placeholder, with: try configJSON(config, schemes, switches))
    }

    public static func userScript(
        config: InterceptionConfig, schemes: [String], switches: InterceptionSwitches
    ) throws -> UserScript {
        UserScript(source: try source(config: config, schemes: schemes, switches: switches), allFrames: true)
    }

    /// Sets the switches the hooks read for documents loaded after it (user scripts run in the order added).
    public static func switchesScript(_ switches: InterceptionSwitches) -> UserScript {
        UserScript(source: "window.__hybridRequestSwitches = \(switchesJSON(switches));", allFrames: true)
    }

    static func switchesJSON(_ switches: InterceptionSwitches) -> String {
        "{\"enabled\":\(switches.hooksEnabled),\"proxyEnabled\":\(switches.proxyEnabled)}"
    }

    static func configJSON(_ config: InterceptionConfig, _ schemes: [String], _ switches: InterceptionSwitches) throws
        -> String
    {
        struct Payload: Encodable {
            let defaultStrategy: InterceptionStrategy
            let rules: [InterceptionConfig.Rule]
            let degraded: [String]
            let chunkBytes: Int
            let uploadsInFlight: Int
            let schemes: [String]
            let enabled: Bool
            let proxyEnabled: Bool
        }
        let payload = Payload(
            defaultStrategy: config.defaultStrategy, rules: config.rules, degraded: config.degraded,
            chunkBytes: max(1024, config.chunkBytes), uploadsInFlight: min(16, max(1, config.uploadsInFlight)),
            schemes: schemes.map { $0.lowercased() },
            enabled: switches.hooksEnabled, proxyEnabled: switches.proxyEnabled)
        let data = try JSONEncoder().encode(payload)
        // Inside a <script>-free user script, but `</` and U+2028/9 are escaped anyway so the JSON stays one
        // expression whatever the prefixes contain.
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "</", with: "<\\/")
            .replacingOccurrences(of: "\u{2028}", with: "\\u2028").replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }
}
