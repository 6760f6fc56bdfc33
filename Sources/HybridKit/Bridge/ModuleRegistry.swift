import Synchronization

/// The modules of one bridge, by name. Safe to change from any thread while calls are served.
public final class ModuleRegistry: Sendable {
    private let modules = Mutex<[String: BridgeModule]>([:])
    private let overrides = Mutex<[String: AccessOverride]>([:])
    private let observers = Mutex<(next: Int, handlers: [Int: @Sendable () -> Void])>((0, [:]))

    public init(_ modules: [BridgeModule] = []) {
        for module in modules { register(module) }
    }

    /// Adds `module`, replacing one with the same name.
    public func register(_ module: BridgeModule) {
        modules.withLock { $0[module.name] = module }
        changed()
    }

    public func unregister(_ name: String) {
        modules.withLock { $0[name] = nil }
        changed()
    }

    /// Replaces every run-time access override (module name → override); modules not listed go back to their
    /// own access. Takes effect from the next call.
    public func setAccessOverrides(_ newOverrides: [String: AccessOverride]) {
        overrides.withLock { $0 = newOverrides }
        changed()
    }

    /// Calls `handler` after every change of modules or access overrides, on the thread that made it, until the
    /// observation is cancelled. Who may read what changes with them: a bridge rebuilds its copy of published state
    /// for new documents.
    func observeChanges(_ handler: @escaping @Sendable () -> Void) -> ModuleRegistryObservation {
        let id = observers.withLock { state in
            defer { state.next += 1 }
            state.handlers[state.next] = handler
            return state.next
        }
        return ModuleRegistryObservation { [weak self] in _ = self?.observers.withLock { $0.handlers[id] = nil } }
    }

    private func changed() {
        for handler in observers.withLock({ Array($0.handlers.values) }) { handler() }
    }

    public var accessOverrides: [String: AccessOverride] { overrides.withLock { $0 } }

    public subscript(name: String) -> BridgeModule? { modules.withLock { $0[name] } }

    /// Module name → method names, every module.
    public var catalog: [String: [String]] {
        modules.withLock { $0.mapValues(\.methodNames) }
    }

    /// Module name → method names of the modules a document may call, as its `hybrid.modules` shows them: a frame
    /// learns nothing of modules that would refuse it (not even that they exist).
    func catalog(origin: String, isMainFrame: Bool, verified: Bool) -> [String: [String]] {
        catalog.filter { name, _ in
            allowsAccess(to: name, origin: origin, isMainFrame: isMainFrame, verified: verified)
        }
    }

    /// The method that answers a call: its module, its name there and the method.
    typealias Target = (module: BridgeModule, name: String, method: BridgeMethod)

    /// Follows forwards from `module.method` to the method that answers it, checking access at every hop.
    ///
    /// `verified` says whether the engine identified the calling frame. When it did not, only modules open to
    /// every page in every frame answer: the origin and frame a page claims are not evidence.
    func resolve(
        module: String, method: String, origin: String, isMainFrame: Bool, verified: Bool = true
    ) throws(BridgeError) -> Target {
        var moduleName = module
        var methodName = method
        for _ in 0..<8 {
            guard let found = self[moduleName] else {
                throw BridgeError(.unknownModule, "no native module named '\(moduleName)'")
            }
            if !verified, found.access.dependsOnTheFrame || overrides.withLock({ $0[moduleName] }) != nil {
                throw .denied(Self.unverifiedFrame(moduleName))
            }
            try checkAccess(found, named: moduleName, origin: origin, isMainFrame: isMainFrame)
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

    /// Whether a frame may call `module` at all (the first hop of
    /// ``resolve(module:method:origin:isMainFrame:verified:)``): the rule for who reads the module's published state.
    func allowsAccess(to module: String, origin: String, isMainFrame: Bool, verified: Bool) -> Bool {
        guard let found = self[module] else { return false }
        if !verified, found.access.dependsOnTheFrame || overrides.withLock({ $0[module] }) != nil { return false }
        do {
            try checkAccess(found, named: module, origin: origin, isMainFrame: isMainFrame)
            return true
        } catch {
            return false
        }
    }

    /// `module`'s access as data a page runtime can apply by itself (origins: nil for any), with the run-time
    /// override folded in; nil when it cannot be written down (a predicate) or there is no such module.
    func staticAccess(of module: String) -> (origins: Set<String>?, allowsSubframes: Bool)? {
        guard let found = self[module] else { return nil }
        var origins: Set<String>?
        switch found.access.origins {
        case .any: origins = nil
        case .only(let set): origins = Set(set.map { $0.lowercased() })
        case .matching, .site: return nil
        }
        if let override = overrides.withLock({ $0[module] }) {
            let given: Set<String>? = override.origins.contains("*") ? nil : override.origins
            switch override.mode {
            case .replace: origins = given
            case .narrow:
                if let given { origins = origins.map { $0.intersection(given) } ?? given }
            }
        }
        return (origins, found.access.allowsSubframes)
    }

    static func unverifiedFrame(_ module: String) -> String {
        "module '\(module)' is limited to some origins or to the main frame, and the engine did not identify the "
            + "calling frame. On WebKitGTK, HybridKit's web-process extension was not loaded: every build of "
            + "HybridKitGTK puts libHybridWebExtension.so in its resource bundle (…_HybridKitGTK.resources); ship "
            + "that directory beside the executable, or set HYBRID_WEB_EXTENSION to the library's path"
    }

    private func checkAccess(
        _ module: BridgeModule, named name: String, origin: String, isMainFrame: Bool
    ) throws(BridgeError) {
        guard let override = overrides.withLock({ $0[name] }) else {
            return try module.access.check(origin: origin, isMainFrame: isMainFrame, module: name)
        }
        try module.access.checkFrame(isMainFrame: isMainFrame, module: name)
        if override.mode == .narrow { try module.access.checkOrigin(origin, module: name) }
        if !override.allows(origin) {
            throw .denied("origin \(origin) may not call module '\(name)' (access restricted at run time)")
        }
    }
}

/// Keeps an observer of a ``ModuleRegistry`` until `cancel()`.
struct ModuleRegistryObservation: Sendable {
    let cancel: @Sendable () -> Void
}
