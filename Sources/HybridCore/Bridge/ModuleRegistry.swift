import Synchronization

/// The modules of one bridge, by name. Safe to change from any thread while calls are served.
public final class ModuleRegistry: Sendable {
    private let modules = Mutex<[String: BridgeModule]>([:])

    public init(_ modules: [BridgeModule] = []) {
        for module in modules { register(module) }
    }

    /// Adds `module`, replacing one with the same name.
    public func register(_ module: BridgeModule) {
        modules.withLock { $0[module.name] = module }
    }

    public func unregister(_ name: String) {
        modules.withLock { $0[name] = nil }
    }

    public subscript(name: String) -> BridgeModule? { modules.withLock { $0[name] } }

    /// Module name → method names, as the page's `hybrid.modules` shows them.
    public var catalog: [String: [String]] {
        modules.withLock { $0.mapValues(\.methodNames) }
    }

    /// Follows forwards from `module.method` to the method that answers it, checking access at every hop.
    func resolve(
        module: String, method: String, origin: String, isMainFrame: Bool
    ) throws(BridgeError) -> (module: BridgeModule, name: String, method: BridgeMethod) {
        var moduleName = module
        var methodName = method
        for _ in 0..<8 {
            guard let found = self[moduleName] else {
                throw BridgeError(.unknownModule, "no native module named '\(moduleName)'")
            }
            try found.access.check(origin: origin, isMainFrame: isMainFrame, module: moduleName)
            guard let target = found.methods[methodName] else {
                throw BridgeError(.unknownMethod, "module '\(moduleName)' has no method '\(methodName)'")
            }
            guard case .forward(let nextModule, let nextMethod) = target.body else {
                return (found, methodName, target)
            }
            (moduleName, methodName) = (nextModule, nextMethod)
        }
        throw BridgeError(.internalError, "forwarding from '\(module).\(method)' loops")
    }
}
