import Foundation

/// Builds the user script that installs `window.hybrid` (and the WebViewJavascriptBridge shim) in every frame.
public enum BridgeRuntimeScript {
    public enum LoadError: Error, CustomStringConvertible {
        case missingResource(String)
        public var description: String {
            switch self {
            case .missingResource(let name):
                "the JavaScript runtime resource '\(name)' is missing: \(PackageResources.shippingAdvice)"
            }
        }
    }

    /// The runtime's source files (Bridge/BridgeRuntime), in the order they are concatenated: each is a section of
    /// one closure's body, sharing its variables (transport.js says what the sections are).
    static let files = [
        "transport", "bytes", "calls", "streams", "sync", "state", "receive", "proxies", "api", "wvjb", "dsbridge",
    ]

    /// Loaded once: the files are immutable package resources.
    static let sources: Result<[String], LoadError> = {
        var texts: [String] = []
        for name in files {
            guard let url = PackageResources.url(forResource: name, withExtension: "js", subdirectory: "BridgeRuntime"),
                let text = try? String(contentsOf: url, encoding: .utf8)
            else { return .failure(.missingResource("BridgeRuntime/\(name).js")) }
            texts.append(text)
        }
        return .success(texts)
    }()

    /// The TypeScript declarations for page authors (`hybrid.d.ts`).
    public static var typeDeclarationsURL: URL? {
        PackageResources.url(forResource: "hybrid", withExtension: "d.ts", subdirectory: "Types")
    }

    /// The complete script for one bridge. `relaySecret` authenticates events relayed to subframes;
    /// `deliveryKey` authenticates native's evaluations of the receiver function.
    static func make(
        configuration: BridgeConfiguration, relaySecret: String, deliveryKey: String, syncKey: String,
        runtimeID: String, bytesURL: String? = nil
    ) throws -> String {
        struct Config: Encodable {
            let handler, replyHandler, receiver, wvjbModule, dsbridgeModule: String
            let relaySecret, deliveryKey, syncKey, runtimeId, version: String
            let dsbridge: Bool
            let maxMessageLength: Int
            let callTimeoutMs: Int
            let streamWindow: Int
            let bytesURL: String?
            let maxBinaryBytes, maxBinaryParts: Int
        }
        let limits = configuration.limits
        let timeout = limits.pageCallTimeout.components
        let config = Config(
            handler: configuration.handlerName, replyHandler: configuration.replyHandlerName,
            receiver: configuration.receiverName, wvjbModule: configuration.wvjbModuleName,
            dsbridgeModule: configuration.dsbridgeModuleName,
            relaySecret: relaySecret, deliveryKey: deliveryKey, syncKey: syncKey, runtimeId: runtimeID,
            version: HybridKitVersion.string, dsbridge: configuration.dsbridgeCompatibility,
            maxMessageLength: limits.maxMessageBytes,
            callTimeoutMs: Int(timeout.seconds) * 1000 + Int(timeout.attoseconds / 1_000_000_000_000_000),
            streamWindow: limits.streamWindow, bytesURL: bytesURL, maxBinaryBytes: limits.maxBinaryBytes,
            maxBinaryParts: limits.maxBinaryParts)
        let configJSON = String(decoding: try JSONEncoder().encode(config), as: UTF8.self)
        let body = try sources.get().joined(separator: "\n")
        return "(function (config) {\n\(body)\n})(\(configJSON));\n"
    }
}
