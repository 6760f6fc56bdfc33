import Foundation
import HybridKit
import HybridKitTesting

/// What these tests add to HybridKitTesting's fake engine: the bridge's wire format, which an app's own tests
/// have no business knowing.
extension FakeEngine {
    /// Posts `body` as the page would, to handler `name`.
    /// Like a real engine, the fake vouches for the sending frame: by default the one the message names
    /// (its frame and origin fields); pass `frame` to post from another, or `unverified` to post as an engine
    /// that cannot identify frames (WebKitGTK without HybridKit's web-process extension).
    func post(
        _ body: ScriptMessage.Body, to name: String = "hybrid", reply: (any ScriptMessageReply)? = nil,
        frame: FrameInfo? = nil, unverified: Bool = false
    ) {
        let sender = unverified ? nil : frame ?? Self.namedFrame(body)
        deliver(ScriptMessage(name: name, body: body, frame: sender), reply: reply)
    }

    /// `H1 <kind> <id> <token> <frame> <origin> …`: the frame and origin a runtime message names.
    private static func namedFrame(_ body: ScriptMessage.Body) -> FrameInfo? {
        guard case .string(let text) = body else { return nil }
        let fields = text.prefix { $0 != "\n" }.split(separator: " ")
        guard fields.count >= 6, fields[0] == "H1" else { return nil }
        let origin = String(fields[5])
        return FrameInfo(url: URL(string: origin), securityOrigin: origin, isMainFrame: fields[4] == "main")
    }

    /// Every message delivered to the page so far, decoded from the batches, oldest first.
    func deliveredMessages() throws -> [[String: Any]] {
        // Large batches are a page function's arguments instead: `__hybridReceive([k, b])`.
        let called = try functionCalls.flatMap { call -> [[String: Any]] in
            guard call.body == "__hybridReceive([k, b])", case .string(let key)? = call.arguments["k"], key.count == 32,
                case .string(let batch)? = call.arguments["b"]
            else { return [] }
            return try JSONSerialization.jsonObject(with: Data(batch.utf8)) as? [[String: Any]] ?? []
        }
        return try called + evaluated()
    }

    private func evaluated() throws -> [[String: Any]] {
        try evaluations.flatMap { script -> [[String: Any]] in
            // `__hybridReceive(["<delivery key>", "<batch as JSON text>"])`: one JSON array of two strings.
            guard script.hasPrefix("__hybridReceive(["), script.hasSuffix("])") else { return [] }
            let arguments = String(script.dropFirst("__hybridReceive(".count).dropLast())
            guard let pair = try JSONSerialization.jsonObject(with: Data(arguments.utf8)) as? [String],
                pair.count == 2, pair[0].count == 32
            else { return [] }
            return try JSONSerialization.jsonObject(with: Data(pair[1].utf8)) as? [[String: Any]] ?? []
        }
    }
}

extension RecordingReply {
    /// The bridge's answers in every resolved reply, decoded.
    func messages() throws -> [[String: Any]] {
        try resolved.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [[String: Any]] ?? [] }
    }
}

/// Builds page messages the way the bridge runtime (Bridge/BridgeRuntime) does.
enum PageMessage {
    static let token = "0123456789abcdef"

    static func call(
        _ module: String, _ method: String, id: Int, args: String = "null", frame: String = "main",
        origin: String = "https://app.example", token: String = token
    ) -> ScriptMessage.Body {
        .string("H1 call \(id) \(token) \(frame) \(origin) \(module) \(method)\n\(args)")
    }

    static func hello(frame: String = "main", origin: String = "https://app.example", token: String = token)
        -> ScriptMessage.Body
    {
        .string("H1 hello 0 \(token) \(frame) \(origin) - -\n{}")
    }
}

/// Lets the engine's actor run queued work (the bridge flushes its batch in a later turn).
@EngineActor
func settle(turns: Int = 20) async {
    for _ in 0..<turns { await Task.yield() }
}

@EngineActor
func waitUntil(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}
