/// State the host publishes to pages (``BridgeEngine/publishState(_:_:module:)``): each value as JSON, with the
/// module whose access decides who reads it, and the document-start script that carries the values to new
/// documents.
///
/// Owned and mutated by the ``BridgeEngine`` actor only.
struct PublishedState {
    private var entries: [String: (module: String, json: String)] = [:]
    /// The document-start script carrying the entries to new documents; nil when none is installed.
    private var script: UserScript?
    private let deliveryKey: String
    private let receiverName: String

    init(deliveryKey: String, receiverName: String) {
        self.deliveryKey = deliveryKey
        self.receiverName = receiverName
    }

    var names: [String] { entries.keys.sorted() }

    /// Refuses a name the runtime cannot carry, or a module that cannot decide who reads it.
    static func validate(_ name: String, module: String, in modules: ModuleRegistry) throws(BridgeError) {
        guard InboundMessageParser.isName(name) else {
            throw .badArguments(
                "state name '\(name)' must be letters, digits, _ $ . - (up to 64, not starting with a digit)")
        }
        guard modules[module] != nil else {
            throw BridgeError(.unknownModule, "no native module named '\(module)' to decide who reads state '\(name)'")
        }
    }

    /// Sets `name`; false when it already held this value for this module (nothing changed).
    mutating func set(_ name: String, json: String, module: String, limit: Int) throws(BridgeError) -> Bool {
        guard json.utf8.count <= limit else {
            throw .badArguments("state '\(name)' is \(json.utf8.count) bytes; the limit is \(limit)")
        }
        if let current = entries[name], current.module == module, current.json == json { return false }
        entries[name] = (module, json)
        return true
    }

    /// Withdraws `name`; false when it was not published.
    mutating func remove(_ name: String) -> Bool { entries.removeValue(forKey: name) != nil }

    /// Replaces the document-start script, so new documents (every frame) start with the current values. The
    /// runtime keeps an entry only where its own origin and frame fit the entry's access; it reads its origin
    /// before any page script runs.
    @EngineActor
    mutating func refreshScript(in engine: any WebEngine, modules: ModuleRegistry) {
        if let old = script {
            engine.removeUserScript(old)
            script = nil
        }
        let verifies = engine.verifiesMessageFrames
        var snapshot: [(name: String, json: String, origins: Set<String>?, subframes: Bool)] = []
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard let module = modules[entry.module], let access = modules.staticAccess(of: entry.module) else {
                continue
            }
            // Where the engine names no frames, modules limited to origins or the main frame answer nobody.
            if !verifies, module.access.dependsOnTheFrame { continue }
            snapshot.append((name, entry.json, access.origins, access.allowsSubframes))
        }
        guard !snapshot.isEmpty else { return }
        let batch = OutboundMessage.javaScriptString(OutboundMessage.batch([OutboundMessage.stateSnapshot(snapshot)]))
        let source =
            "(function () { const receive = window[\(OutboundMessage.quote(receiverName))]; "
            + "if (typeof receive === 'function') receive([\(OutboundMessage.quote(deliveryKey)),\(batch)]); })();"
        let script = UserScript(source: source, injectionTime: .documentStart, allFrames: true)
        engine.addUserScript(script)
        self.script = script
    }

    /// The entries `sender` may read, as a JSON object.
    func json(for sender: BridgeEngine.Sender, modules: ModuleRegistry) -> String {
        var parts: [String] = []
        for (name, entry) in entries.sorted(by: { $0.key < $1.key })
        where modules.allowsAccess(
            to: entry.module, origin: sender.origin, isMainFrame: sender.isMainFrame, verified: sender.verified)
        {
            parts.append("\(OutboundMessage.quote(name)):\(entry.json)")
        }
        return "{" + parts.joined(separator: ",") + "}"
    }
}
