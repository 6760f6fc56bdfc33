import Foundation

/// The request hooks (RequestBodies/HooksRuntime) with a config baked in, as a user script for every frame.
public enum RequestHooksScript {
    public enum ScriptError: Error, CustomStringConvertible {
        case missingResource
        public var description: String {
            "HybridKit's resources HooksRuntime/*.js are missing: \(PackageResources.shippingAdvice)"
        }
    }

    /// The hook files (RequestBodies/HooksRuntime), split by the API they patch and joined here, in this order, into one
    /// script with one closure: what a file declares is shared with the files after it and never reaches the page.
    /// The closure files are the body of the outer function, which takes the config; the realm files are the body of
    /// `install(win, parentPageURL)`, which hooks one realm (core.js says more).
    static let closureFiles = ["core"]
    static let realmFiles = ["response", "page", "upload", "xhr", "fetch", "beacon", "form", "frames"]

    /// The files joined into the outer function, all but its config argument; loaded once: the files are immutable
    /// package resources.
    static let assembled: String? = {
        guard let closure = joined(closureFiles), let realm = joined(realmFiles) else { return nil }
        return "(function (config) {\n\(closure)\nfunction install(win, parentPageURL) {\n\(realm)\n}\n\n"
            + "install(window, null);\n})"
    }()

    private static func joined(_ names: [String]) -> String? {
        var texts: [String] = []
        for name in names {
            guard let url = PackageResources.url(forResource: name, withExtension: "js", subdirectory: "HooksRuntime"),
                let text = try? String(contentsOf: url, encoding: .utf8)
            else { return nil }
            texts.append(text)
        }
        return texts.joined(separator: "\n")
    }

    /// The hook source with `config` for pages on `schemes`; `bodyKey` is the handler's
    /// (``InterceptingSchemeHandler/bodyKey``), put on the bodies the hooks vouch for. `channel` is the body
    /// channel's endpoint (``BodyChannel/endpoint``), if the page may send bodies there.
    public static func source(
        config: InterceptionConfig, schemes: [String], switches: InterceptionSwitches, bodyKey: String,
        channel: String? = nil
    ) throws -> String {
        guard let assembled else { throw ScriptError.missingResource }
        let argument = try configJSON(config, schemes, switches, bodyKey: bodyKey, channel: channel)
        return "\(assembled)(\(argument));\n"
    }

    public static func userScript(
        config: InterceptionConfig, schemes: [String], switches: InterceptionSwitches, bodyKey: String,
        channel: String? = nil
    ) throws -> UserScript {
        UserScript(
            source: try source(
                config: config, schemes: schemes, switches: switches, bodyKey: bodyKey, channel: channel),
            allFrames: true)
    }

    /// Sets the switches the hooks read for documents loaded after it (user scripts run in the order added).
    public static func switchesScript(_ settings: InterceptionSwitches.Settings) -> UserScript {
        UserScript(source: "window.__hybridRequestSwitches = \(switchesJSON(settings));", allFrames: true)
    }

    /// What the hooks read at run time: `enabled`, `proxyEnabled`, `apis` (name → on), `degraded` and
    /// `closedChannels`.
    private struct SwitchesPayload: Encodable {
        let enabled: Bool
        let proxyEnabled: Bool
        let apis: [String: Bool]
        let degraded: [String]
        let closedChannels: [String]

        init(_ settings: InterceptionSwitches.Settings) {
            enabled = settings.hooksEnabled
            proxyEnabled = settings.proxyEnabled
            apis = Dictionary(
                uniqueKeysWithValues: RequestAPI.allCases.map { ($0.rawValue, !settings.disabledAPIs.contains($0)) })
            degraded = settings.degradedPages
            closedChannels = settings.closedBodyChannels
        }
    }

    static func switchesJSON(_ settings: InterceptionSwitches.Settings) -> String {
        // Encoding cannot fail for strings and booleans; "{}" would leave the baked-in config in charge.
        (try? scriptSafeJSON(SwitchesPayload(settings))) ?? "{}"
    }

    static func configJSON(
        _ config: InterceptionConfig, _ schemes: [String], _ switches: InterceptionSwitches, bodyKey: String,
        channel: String? = nil
    ) throws -> String {
        struct Payload: Encodable {
            let defaultStrategy: InterceptionStrategy
            let rules: [InterceptionConfig.Rule]
            let degraded: [String]
            let chunkBytes: Int
            let uploadsInFlight: Int
            let schemes: [String]
            let switches: SwitchesPayload
            let bodyKey: String
            let channel: String?
        }
        let payload = Payload(
            defaultStrategy: config.defaultStrategy, rules: config.rules, degraded: config.degraded,
            chunkBytes: max(1024, config.chunkBytes), uploadsInFlight: min(16, max(1, config.uploadsInFlight)),
            schemes: schemes.map { $0.lowercased() }, switches: SwitchesPayload(switches.effective), bodyKey: bodyKey,
            channel: channel)
        return try scriptSafeJSON(payload)
    }

    /// JSON that stays one expression inside a script whatever its strings contain: `</` and U+2028/9 escaped.
    private static func scriptSafeJSON(_ value: some Encodable) throws -> String {
        let data = try JSONEncoder().encode(value)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "</", with: "<\\/")
            .replacingOccurrences(of: "\u{2028}", with: "\\u2028").replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }
}
