/// A named group of native methods pages can call (`hybrid.call(module, method, args)`).
///
///     let device = BridgeModule("device", access: .origins("app://main")) { module in
///         module.method("info") { (_: NoArguments, call) in DeviceInfo.current }
///         module.method("vibrate") { (args: Pattern, call) async throws in try await haptics.play(args) }
///         module.forward("legacyInfo", to: "device", method: "info")
///     }
public struct BridgeModule: Sendable {
    /// Where methods run: on the engine's thread (cheapest, may touch the web view) or off it
    /// (for blocking or heavy work, so the page keeps painting).
    public enum Execution: Sendable { case engineThread, background }

    public let name: String
    public internal(set) var access: BridgeAccess
    public let execution: Execution
    let methods: [String: BridgeMethod]

    public init(
        _ name: String, access: BridgeAccess, execution: Execution = .engineThread,
        _ define: (inout BridgeModuleBuilder) -> Void
    ) {
        var builder = BridgeModuleBuilder()
        define(&builder)
        self.name = name
        self.access = access
        self.execution = execution
        self.methods = builder.methods
    }

    public var methodNames: [String] { methods.keys.sorted() }
}

/// Collects a module's methods.
public struct BridgeModuleBuilder {
    var methods: [String: BridgeMethod] = [:]

    /// A synchronous method. With `.engineThread` execution it answers without any thread hop.
    ///
    /// With `synchronous: true` pages may also call it with `hybrid.callSync` (and DSBridge's `call` without a
    /// callback), which blocks the page's main thread for the round trip: see docs/bridge-sync.md.
    public mutating func method<Args: Decodable & Sendable, Result: Encodable & Sendable>(
        _ name: String, timeout: Duration? = nil, synchronous: Bool = false,
        _ body: @escaping @Sendable (Args, CallContext) throws -> Result
    ) {
        methods[name] = BridgeMethod(
            body: .sync { payload, call in
                try BridgeMethod.encode(try body(try BridgeMethod.decode(Args.self, from: payload), call))
            }, timeout: timeout, synchronous: synchronous)
    }

    /// An asynchronous method; cancelled when the page navigates away, the bridge closes or it times out.
    /// With `synchronous: true` a synchronous call waits for it, up to ``BridgeLimits/syncCallTimeout``.
    public mutating func method<Args: Decodable & Sendable, Result: Encodable & Sendable>(
        _ name: String, timeout: Duration? = nil, synchronous: Bool = false,
        _ body: @escaping @Sendable (Args, CallContext) async throws -> Result
    ) {
        methods[name] = BridgeMethod(
            body: .async { payload, call in
                try BridgeMethod.encode(try await body(try BridgeMethod.decode(Args.self, from: payload), call))
            }, timeout: timeout, synchronous: synchronous)
    }

    /// A method whose results are the elements of an `AsyncSequence`; pages read them with `hybrid.stream` (an
    /// async iterator, or a callback per element). The sequence is read only as fast as the page consumes, at
    /// most ``BridgeLimits/streamWindow`` elements ahead; it is cancelled when the page stops reading, navigates
    /// away or the bridge closes, and its end or error ends the page's loop the same way.
    public mutating func stream<Args: Decodable & Sendable, Elements: AsyncSequence>(
        _ name: String, _ body: @escaping @Sendable (Args, CallContext) async throws -> Elements
    ) where Elements.Element: Encodable {
        methods[name] = BridgeMethod(
            body: .stream { payload, call, sink in
                let elements = try await body(try BridgeMethod.decode(Args.self, from: payload), call)
                for try await element in elements {
                    try await sink.send(try BridgeMethod.encode(element))
                }
            }, timeout: nil)
    }

    /// Answers `name` with another module's method (message forwarding, so old method names keep working). The target
    /// module's access rules apply too.
    public mutating func forward(_ name: String, to module: String, method: String? = nil) {
        methods[name] = BridgeMethod(body: .forward(module: module, method: method ?? name), timeout: nil)
    }
}
